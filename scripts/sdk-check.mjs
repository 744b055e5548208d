// sdk-check.mjs drives the minicode binary through the Agent SDK's query(),
// exactly as an application built on the SDK would, against a local scripted
// model that speaks the Anthropic Messages streaming format.
//
// Usage: node scripts/sdk-check.mjs /path/to/minicode
// (run by scripts/sdk-check.sh, which installs the pinned SDK first)
//
// Each case starts a scripted model whose replies are listed in the case,
// runs query() with pathToClaudeCodeExecutable pointing at minicode, and
// checks the messages the SDK yields. The last line counts passes and
// failures; the exit code is 1 when any case failed.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node sdk-check.mjs /path/to/minicode");
  process.exit(2);
}

// sse renders one scripted reply as the events of a streamed message.
function sse(reply, n) {
  const events = [];
  const ev = (type, data) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", {
    message: { id: `msg_${n}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [],
      stop_reason: null, usage: { input_tokens: 100, output_tokens: 1 } },
  });
  let stop = "end_turn";
  if (reply.tool) {
    stop = "tool_use";
    ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: `toolu_${n}`, name: reply.tool, input: {} } });
    ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(reply.input) } });
  } else {
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: reply.text } });
  }
  ev("content_block_stop", { index: 0 });
  ev("message_delta", { delta: { stop_reason: stop }, usage: { output_tokens: 10 } });
  ev("message_stop", {});
  return events.join("");
}

// scriptedModel serves the replies in order, one per request, and keeps
// the requests it saw.
async function scriptedModel(replies) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      requests.push(JSON.parse(body));
      const reply = replies[requests.length - 1] ?? { text: "(script exhausted)" };
      const hold = reply.delayMs ?? 0;
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(sse(reply, requests.length));
      }, hold);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, requests, url: `http://127.0.0.1:${server.address().port}` };
}

// run starts a query against a fresh workspace and collects every message;
// each is called with every message and the query, while it runs.
async function run(replies, prompt, options = {}, setup = () => {}, each = async () => {}) {
  const model = await scriptedModel(replies);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "sdk-ws-"));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "sdk-home-"));
  setup(ws);
  const messages = [];
  try {
    const q = query({
      prompt,
      options: {
        pathToClaudeCodeExecutable: bin,
        cwd: ws,
        env: { ...process.env, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.url, MINICODE_HOME: home, HOME: home },
        ...options,
      },
    });
    for await (const m of q) {
      messages.push(m);
      await each(m, q);
    }
  } finally {
    model.server.close();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
  return { messages, requests: model.requests };
}

const results = (ms) => ms.filter((m) => m.type === "result");
const toolResults = (ms) =>
  ms.filter((m) => m.type === "user").flatMap((m) => (Array.isArray(m.message.content) ? m.message.content : []))
    .filter((b) => b.type === "tool_result");
const text = (b) => (typeof b.content === "string" ? b.content : JSON.stringify(b.content));

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

const cases = {
  async "one prompt: a tool call and an answer"() {
    const { messages } = await run(
      [{ tool: "read_file", input: { path: "hello.txt" } }, { text: "The file says hello." }],
      "What does hello.txt say?",
      { maxTurns: 5 },
      (ws) => fs.writeFileSync(path.join(ws, "hello.txt"), "hello from the workspace\n"),
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init && init.session_id && Array.isArray(init.tools), `no system/init with tools: ${JSON.stringify(init)}`);
    expect(toolResults(messages).some((b) => text(b).includes("hello from the workspace")), "the tool result lacks the file");
    const [res] = results(messages);
    expect(res && res.subtype === "success" && res.result === "The file says hello.", `result: ${JSON.stringify(res)}`);
  },

  async "a stream of prompts gets one result each"() {
    async function* prompts() {
      yield { type: "user", message: { role: "user", content: "first" }, parent_tool_use_id: null, session_id: "" };
      yield { type: "user", message: { role: "user", content: "second" }, parent_tool_use_id: null, session_id: "" };
    }
    const { messages, requests } = await run([{ text: "one" }, { text: "two" }], prompts(), { maxTurns: 3 });
    const rs = results(messages).map((r) => r.result);
    expect(rs.length === 2 && rs[0] === "one" && rs[1] === "two", `results: ${JSON.stringify(rs)}`);
    const last = JSON.stringify(requests[1].messages);
    expect(last.includes("first") && last.includes("second"), "the second turn does not see the first");
  },

  async "canUseTool changes the input it allows"() {
    const asked = [];
    const { messages } = await run(
      [{ tool: "run_command", input: { command: "echo original >/dev/stderr" } }, { text: "ran it" }],
      "run something",
      {
        maxTurns: 4,
        canUseTool: async (name, input) => {
          asked.push(name);
          return { behavior: "allow", updatedInput: { ...input, command: "echo replaced" } };
        },
      },
    );
    expect(asked.length === 1 && asked[0] === "Bash", `canUseTool calls: ${JSON.stringify(asked)}`);
    const out = toolResults(messages).map(text).join("\n");
    expect(out.includes("replaced") && !out.includes("original"), `tool output: ${out}`);
  },

  async "canUseTool sees Claude Code's names and keys, and its updatedInput is read in them"() {
    const asked = [];
    let dir = "";
    const { messages } = await run(
      [{ tool: "write_file", input: { path: "asked.txt", content: "model" } }, { text: "written" }],
      "write a file",
      {
        maxTurns: 4,
        canUseTool: async (name, input) => {
          asked.push([name, input]);
          return { behavior: "allow", updatedInput: { file_path: path.join(dir, "chosen.txt"), content: "app" } };
        },
      },
      (ws) => (dir = fs.realpathSync(ws)),
    );
    const [name, input] = asked[0] ?? [];
    expect(asked.length === 1 && name === "Write" && input.file_path === path.join(dir, "asked.txt") && input.content === "model" && !("path" in input),
      `canUseTool calls: ${JSON.stringify(asked)}`);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(["Bash", "Read", "Write", "Edit", "Glob", "Grep", "TodoWrite"].every((t) => init.tools.includes(t)) && !init.tools.includes("read_file"),
      `init tools: ${JSON.stringify(init.tools)}`);
    const call = messages.filter((m) => m.type === "assistant").flatMap((m) => m.message.content).find((b) => b.type === "tool_use");
    expect(call && call.name === "Write" && call.input.file_path === path.join(dir, "asked.txt"), `tool_use block: ${JSON.stringify(call)}`);
    const out = toolResults(messages).map(text).join("\n");
    expect(out.includes("chosen.txt") && !out.includes("asked.txt"), `tool output: ${out}`);
  },

  async "canUseTool deny reaches the model"() {
    const { messages, requests } = await run(
      [{ tool: "run_command", input: { command: "echo nope >/dev/stderr" } }, { text: "understood" }],
      "run something",
      { maxTurns: 4, canUseTool: async () => ({ behavior: "deny", message: "not today" }) },
    );
    expect(JSON.stringify(requests[1].messages).includes("not today"), "the denial message did not reach the model");
    const [res] = results(messages);
    expect(res.subtype === "success" && !res.is_error, `result: ${JSON.stringify(res)}`);
    expect(res.permission_denials.length === 1, `denials: ${JSON.stringify(res.permission_denials)}`);
  },

  async "a tool of the app's own MCP server runs in the app"() {
    const calls = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push([a, b]);
          return { content: [{ type: "text", text: `the sum is ${a + b}` }] };
        }),
      ],
    });
    const { messages, requests } = await run(
      [{ tool: "mcp__calc__add", input: { a: 2, b: 3 } }, { text: "2 + 3 = 5" }],
      "add 2 and 3",
      { maxTurns: 4, mcpServers: { calc }, allowedTools: ["mcp__calc__add"] },
    );
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init.tools.includes("mcp__calc__add"), `init tools: ${JSON.stringify(init.tools)}`);
    const server = init.mcp_servers.find((s) => s.name === "calc");
    expect(server && server.status === "connected", `init mcp_servers: ${JSON.stringify(init.mcp_servers)}`);
    expect(requests[0].tools.some((t) => t.name === "mcp__calc__add"), "the model was not offered the tool");
    expect(calls.length === 1 && calls[0][0] === 2 && calls[0][1] === 3, `the app's tool ran with: ${JSON.stringify(calls)}`);
    expect(JSON.stringify(requests[1].messages).includes("the sum is 5"), "the tool's result did not reach the model");
    const [res] = results(messages);
    expect(res && res.subtype === "success" && res.result === "2 + 3 = 5", `result: ${JSON.stringify(res)}`);
  },

  async "hook callbacks see Claude Code's names and keys, and their updatedInput is read in them"() {
    const pre = [];
    const post = [];
    let dir = "";
    const { messages } = await run(
      [{ tool: "write_file", input: { path: "hooked.txt", content: "model" } }, { text: "written" }],
      "write a file",
      {
        maxTurns: 4,
        permissionMode: "acceptEdits",
        hooks: {
          PreToolUse: [{ matcher: "Write", hooks: [async (input) => {
            pre.push(input);
            return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow",
              updatedInput: { ...input.tool_input, content: "from the hook\n" } } };
          }] }],
          PostToolUse: [{ hooks: [async (input) => (post.push(input), {})] }],
        },
      },
      (ws) => (dir = fs.realpathSync(ws)),
      async (m) => m.type === "result" && (post.written = fs.readFileSync(path.join(dir, "hooked.txt"), "utf8")),
    );
    const [input] = pre;
    expect(pre.length === 1 && input.hook_event_name === "PreToolUse" && input.tool_name === "Write" &&
      input.tool_input.file_path === path.join(dir, "hooked.txt") && !("path" in input.tool_input), `PreToolUse inputs: ${JSON.stringify(pre)}`);
    expect(post.length === 1 && post[0].tool_name === "Write" && post[0].tool_input.content === "from the hook\n",
      `PostToolUse inputs: ${JSON.stringify(post)}`);
    expect(post.written === "from the hook\n", `the file holds ${JSON.stringify(post.written)}`);
    expect(results(messages)[0]?.subtype === "success", "no success result");
  },

  async "a stdio MCP server that takes a second to start is in the first request, connected, given on argv or in initialize"() {
    for (const delivery of ["argv", "initialize"]) await slowServerCase(delivery);
  },

  async "max turns ends with an error result that lists errors"() {
    const loop = { tool: "list_files", input: { path: "." } };
    const { messages } = await run([loop, loop, loop], "loop", { maxTurns: 2 });
    const [res] = results(messages);
    expect(res && res.subtype === "error_max_turns" && res.is_error, `result: ${JSON.stringify(res)}`);
    expect(Array.isArray(res.errors), "the error result has no errors list");
  },
};

// slowServerCase runs a stdio MCP server that answers only after a second,
// given to minicode as the SDK's mcpServersDelivery says: on the command
// line (argv) or in the initialize request.
async function slowServerCase(delivery) {
  const server = path.join(os.tmpdir(), `slow-mcp-${process.pid}.mjs`);
  fs.writeFileSync(server, slowMCPServer);
  const statuses = [];
  const partial = new Set();
  try {
    const { messages, requests } = await run(
      [{ tool: "mcp__slow__echo", input: { text: "hi" } }, { text: "echoed" }],
      "echo hi",
      { maxTurns: 4, includePartialMessages: true, allowedTools: ["mcp__slow__echo"], mcpServersDelivery: delivery,
        mcpServers: { slow: { type: "stdio", command: process.execPath, args: [server] } } },
      () => {},
      async (m, q) => {
        if (m.type === "system" && m.subtype === "init") statuses.push(...(await q.mcpServerStatus()));
        if (m.type === "stream_event") partial.add(m.event.type + (m.event.delta?.type ? `/${m.event.delta.type}` : ""));
      },
    );
    const names = requests[0]?.tools.map((t) => t.name) ?? [];
    expect(names.includes("mcp__slow__echo"), `${delivery}: first request tools: ${names}`);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init.mcp_servers.some((s) => s.name === "slow" && s.status === "connected"), `${delivery}: init mcp_servers: ${JSON.stringify(init.mcp_servers)}`);
    expect(statuses.some((s) => s.name === "slow" && s.status === "connected"), `${delivery}: mcpServerStatus(): ${JSON.stringify(statuses)}`);
    expect(toolResults(messages).some((b) => text(b).includes("echo: hi")), `${delivery}: the server's tool did not run`);
    for (const want of ["message_start", "content_block_start", "content_block_delta/input_json_delta", "message_delta", "message_stop"]) {
      expect(partial.has(want), `no ${want} among the stream events ${JSON.stringify([...partial])}`);
    }
  } finally {
    fs.rmSync(server, { force: true });
  }
}

// slowMCPServer is a stdio MCP server with one tool, echo, that answers
// nothing for its first second, as a server that loads slowly does.
const slowMCPServer = `
import readline from "node:readline";
await new Promise((ok) => setTimeout(ok, 1000));
const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
for await (const line of readline.createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === "initialize") reply(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "slow", version: "1" } });
  if (m.method === "tools/list") reply(m.id, { tools: [{ name: "echo", description: "Echo the text", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] });
  if (m.method === "tools/call") reply(m.id, { content: [{ type: "text", text: "echo: " + m.params.arguments.text }] });
}
`;

let passed = 0;
let failed = 0;
for (const [name, fn] of Object.entries(cases)) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err && err.message}`);
  }
}
console.log(`sdk-check: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
