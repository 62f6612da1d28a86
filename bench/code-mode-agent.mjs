// The reference agent of the code-mode bench: runs a task's plan (bench/code-mode-tasks.mjs) against a real `serve`
// in one mode through the SDK's Client, and counts what it puts in the model's context: every request the model
// writes (the tool call's name and arguments as JSON) and every result it reads (the content it is given: the
// result's text), in bytes. The listing is counted once per mode by the caller.
//   tools:   the plan's calls, one tool call each, in order.
//   dynamic: search_tools for each of the task's searches, describe_tool for each tool used, then call_tool per call.
//   code:    the same searches and one describe call for the tools used, then the plan as one `execute` script.

const AsyncFunction = (async () => {}).constructor;

/** What a result puts before the model: its text content (other content as its JSON). */
export function resultText(result) {
  return (result.content ?? []).map((item) => (item.type === "text" ? item.text : JSON.stringify(item))).join("\n");
}

export class Agent {
  /** `client` is connected to `serve --mode <mode>`; `listed` its tools/list (for code mode's tool names). */
  constructor({ client, mode, listed }) {
    Object.assign(this, { client, mode, listed });
    this.requestBytes = 0;
    this.resultBytes = 0;
    this.calls = 0;
    this.notes = [];
  }

  async call(name, args) {
    this.requestBytes += Buffer.byteLength(JSON.stringify({ name, arguments: args }));
    const result = await this.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    const text = resultText(result);
    this.resultBytes += Buffer.byteLength(text);
    this.calls++;
    return { result, text };
  }

  async run(task) {
    if (this.mode === "tools") return this.plan(task, (tool, args) => this.call(tool, args));
    await this.discover(task);
    if (this.mode === "dynamic")
      return this.plan(task, (tool, args) => this.call("call_tool", { name: tool, arguments: args }));
    const { result, text } = await this.call(this.named(/^execute$/), { code: task.plan });
    if (result.isError) throw new Error(`${task.id}: execute failed: ${text}`);
    return text;
  }

  /** The plan, with each `api` call made as one tool call whose full response the model reads. */
  async plan(task, call) {
    const api = new Proxy(
      {},
      {
        get: (_, tool) => async (args) => {
          const { result, text } = await call(String(tool), args);
          if (result.isError) throw new Error(`${task.id}: ${String(tool)} failed: ${text}`);
          return JSON.parse(text);
        },
      },
    );
    return JSON.stringify(await new AsyncFunction("api", task.plan)(api));
  }

  /** Search for each need, then describe the tools the plan uses: what a model does before its first real call. */
  async discover(task) {
    const search = this.mode === "dynamic" ? "search_tools" : this.named(/search/);
    const found = new Set();
    for (const query of task.searches) {
      const { text } = await this.call(search, { query });
      for (const match of text.matchAll(/^([\w.-]+): /gm)) found.add(match[1]);
    }
    const missed = task.tools.filter((tool) => !found.has(tool));
    if (missed.length > 0) this.notes.push(`${task.id}: search did not list ${missed.join(", ")}`);
    if (this.mode === "dynamic") {
      for (const name of task.tools) await this.call("describe_tool", { name });
      return;
    }
    const describe = this.listed.find((tool) => /describe/.test(tool.name));
    // Whatever the describe tool takes: a list of names (all at once) or one name per call.
    const properties = Object.entries(describe.inputSchema.properties ?? {});
    const list = properties.find(([, schema]) => schema.type === "array")?.[0];
    if (list) await this.call(describe.name, { [list]: task.tools });
    else for (const name of task.tools) await this.call(describe.name, { [properties[0][0]]: name });
  }

  named(pattern) {
    const tool = this.listed.find((t) => pattern.test(t.name));
    if (!tool) throw new Error(`no tool matching ${pattern} in code mode's listing`);
    return tool.name;
  }
}
