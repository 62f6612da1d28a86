// A throwaway self-signed certificate for 127.0.0.1, made with the openssl command line when it is installed, so a
// test can run an https upstream on loopback (and trust exactly that certificate). No key is kept in the repository.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificate {
  key: string;
  cert: string;
}

/** A key and certificate for IP 127.0.0.1, or undefined when openssl is not available. */
export function loopbackCertificate(): TestCertificate | undefined {
  const dir = mkdtempSync(join(tmpdir(), "openapi-mcp-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore", timeout: 10_000 },
    );
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
