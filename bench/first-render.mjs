// The console's Tools page, first render: from navigation start to the whole list painted (the page marks it on
// <html data-tools-painted>, ui/tools.js), for a logged-in admin opening `/console/#/tools` afresh in Chromium, on
// loopback. GitHub's 1,223 tools beside the floor: the same page with the 3-tool petstore (page load, login check,
// preact and the console's own modules), served by a second `serve` in the same run. Medians of --runs navigations.
//
// Run: npm run build && node bench/first-render.mjs   Options: --runs N (7)  --cli FILE (dist/cli.js)

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { median, printMachine, recordSummary } from "./report.mjs";

const root = new URL("..", import.meta.url).pathname;
const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    cli: { type: "string", default: `${root}dist/cli.js` },
  },
});
const RUNS = Number(options.runs);
const TOKEN = "bench-console-token-0123456789abcdef";
const TARGET_MS = 1000;
const GITHUB = `${root}node_modules/@octokit/openapi/generated/api.github.com.json`;
const PETSTORE = `${root}examples/petstore.openapi.yaml`;

/** `serve <spec> --console` on a free port; resolves with its origin once it says it is serving. */
function startServer(spec) {
  const child = spawn(
    process.execPath,
    [options.cli, "serve", spec, "--transport", "http", "--port", "0", "--console", "--console-token-env", "TOKEN"],
    { env: { PATH: process.env.PATH ?? "", TOKEN }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const origin = /(http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
      if (origin) resolve({ origin, stop: () => child.kill("SIGTERM") });
    });
    child.on("exit", () => reject(new Error(`serve ${spec} exited:\n${stderr}`)));
  });
}

async function paintTimes(context, origin) {
  const page = await context.newPage();
  await page.goto(`${origin}/console/`);
  await page.fill("#token", TOKEN);
  await page.press("#token", "Enter");
  await page.waitForSelector("header.top");
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    await page.goto("about:blank");
    await page.goto(`${origin}/console/#/tools`);
    await page.waitForSelector("html[data-tools-painted]", { timeout: 30_000 });
    times.push(Number(await page.getAttribute("html", "data-tools-painted")));
  }
  const tools = await page.locator(".tool-list li").count();
  await page.close();
  return { times, tools };
}

printMachine();
const profile = mkdtempSync(join(tmpdir(), "bench-chromium-"));
const [github, petstore] = await Promise.all([startServer(GITHUB), startServer(PETSTORE)]);
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1366, height: 800 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
});
try {
  const floor = await paintTimes(context, petstore.origin);
  const measured = await paintTimes(context, github.origin);
  const value = median(measured.times);
  const base = median(floor.times);
  console.log(`petstore, ${floor.tools} tools: ${floor.times.join(", ")} ms (median ${base})`);
  console.log(`GitHub, ${measured.tools} tools: ${measured.times.join(", ")} ms (median ${value})`);
  console.log(
    `ratio ${(value / base).toFixed(2)}×, target ≤ ${TARGET_MS} ms: ${value <= TARGET_MS ? "met" : "NOT met"}`,
  );
  recordSummary({
    bench: "first-render",
    measure: `console Tools page, GitHub's ${measured.tools} tools: navigation to painted`,
    value: `${value} ms`,
    floor: `${base} ms (${(value / base).toFixed(2)}×, petstore)`,
    target: `≤ ${TARGET_MS} ms`,
    met: value <= TARGET_MS,
  });
} finally {
  await context.close();
  github.stop();
  petstore.stop();
  rmSync(profile, { recursive: true, force: true });
}
