// The reference agent of the code-mode bench: runs a task's plan (bench/code-mode-tasks.mjs) against a real `serve`
// in one mode through the SDK's Client, and counts what it puts in the model's context: every request the model
// writes (the tool call's name and arguments as JSON) and every result it reads (the content it is given: the
// result's text), in bytes. The listing (tools/list) is the caller's to add, to every task's total.
//   tools:   the plan's calls, one tool call each, in order.
//   dynamic: search_tools for each of the task's searches, describe_tool for each tool used, then call_tool per call.
//   code:    the same searches, one describe_tools call for the tools used, then the plan as one `execute` script.

const AsyncFunction = (async () => {}).constructor;

/** What a result puts before the model: its text content (other content as its JSON). */
export function resultText(result) {
  return (result.content ?? []).map((item) => (item.type === "text" ? item.text : JSON.stringify(item))).join("\n");
}

export class Agent {
  /** `client` is connected to `serve --mode <mode>`. */
  constructor({ client, mode }) {
    Object.assign(this, { client, mode });
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
    const { result, text } = await this.call("execute", { code: task.plan });
    if (result.isError) throw new Error(`${task.id}: execute failed: ${text}`);
    // execute answers {"value":…,"calls":[…]}: the value is the plan's answer, as the other modes compute it.
    return JSON.stringify(JSON.parse(text).value);
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
    const found = new Set();
    for (const query of task.searches) {
      const { text } = await this.call("search_tools", { query });
      for (const match of text.matchAll(/^([\w.-]+): /gm)) found.add(match[1]);
    }
    const missed = task.tools.filter((tool) => !found.has(tool));
    if (missed.length > 0) this.notes.push(`${task.id}: search did not list ${missed.join(", ")}`);
    if (this.mode === "dynamic") for (const name of task.tools) await this.call("describe_tool", { name });
    else await this.call("describe_tools", { names: task.tools });
  }
}
