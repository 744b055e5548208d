// acp-check.mjs drives `minicode acp` with the client of the official Agent
// Client Protocol SDK (@agentclientprotocol/sdk), as an editor would, through
// a scripted session (--mock-script): a prompt whose turn thinks, reads a
// file, edits it, runs a command and answers, then a prompt cancelled while
// its command runs, then session/load of the session in a second connection.
// The SDK checks every message against the protocol's schema; this script
// checks the exact sequence of updates and the stop reasons.
//
// Usage: node scripts/acp-check.mjs /path/to/minicode
// (run by scripts/acp-check.sh, which installs the pinned SDK first)
//
// The last line counts passes and failures; the exit code is 1 when any
// check failed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node acp-check.mjs /path/to/minicode");
  process.exit(2);
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), "acp-check-home-"));
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acp-check-ws-")));
const notes = path.join(ws, "notes.txt");
fs.writeFileSync(notes, "alpha\nbeta\n");
const script = path.join(home, "script.json");
fs.writeFileSync(script, JSON.stringify([
  { thinking: "Read first.", text: "Reading the notes.", tool_calls: [{ id: "r1", name: "read_file", input: { path: "notes.txt" } }] },
  { tool_calls: [{ id: "e1", name: "edit_file", input: { path: "notes.txt", old_string: "beta", new_string: "gamma" } }] },
  { tool_calls: [{ id: "c1", name: "run_command", input: { command: "echo checked >/dev/stderr" } }] },
  { text: "The notes now say gamma." },
  { tool_calls: [{ id: "c2", name: "run_command", input: { command: "sleep 30" } }] },
]));

let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}\n     ${detail}`);
  }
}

// summary names an update by its kind, tool call, status and text, so a run
// of streamed chunks reads as one entry.
function summary(updates) {
  const out = [];
  for (const u of updates) {
    const kind = u.sessionUpdate;
    const text = u.content?.type === "text" ? u.content.text : "";
    const last = out[out.length - 1];
    if (text && last?.kind === kind) {
      last.text += text;
      continue;
    }
    out.push({ kind, text, id: u.toolCallId, status: u.status, toolKind: u.kind, title: u.title });
  }
  return out.map((e) => [e.kind, e.id, e.toolKind, e.status, e.title, e.text].filter(Boolean).join(" "));
}

// connect starts minicode acp and returns the SDK's client app, the updates
// it received, the permission questions it answered, and the process.
function connect(buffers, answers) {
  const child = spawn(bin, ["acp", "--mock-script", script], {
    env: { PATH: process.env.PATH, HOME: home, MINICODE_HOME: home },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const seen = { updates: [], questions: [] };
  const app = acp.client({ name: "acp-check" })
    .onNotification(acp.methods.client.session.update, ({ params }) => { seen.updates.push(params.update); })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      seen.questions.push(params);
      const answer = answers.shift();
      return answer ? { outcome: { outcome: "selected", optionId: answer } } : new Promise(() => {}); // never answered
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: buffers.get(params.path) ?? fs.readFileSync(params.path, "utf8") }))
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => { buffers.set(params.path, params.content); return {}; });
  return { app, stream, seen, child };
}

const fsCaps = { fs: { readTextFile: true, writeTextFile: true } };
const buffers = new Map([[notes, "alpha\nbeta\nunsaved\n"]]);
const first = connect(buffers, ["allow_once", "allow_once"]);
const sessionId = await first.app.connectWith(first.stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: fsCaps });
  check("initialize: protocol version and capabilities", init.protocolVersion === acp.PROTOCOL_VERSION && init.agentCapabilities.loadSession &&
    init.agentCapabilities.promptCapabilities.embeddedContext, JSON.stringify(init));
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
  check("session/new: the permission modes", session.modes.availableModes.map((m) => m.id).join(",") === "default,acceptEdits,plan,bypassPermissions,dontAsk",
    JSON.stringify(session.modes));
  const turn = await ctx.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "fix the notes" }] });
  check("prompt: stop reason end_turn", turn.stopReason === "end_turn", JSON.stringify(turn));
  const want = [
    "available_commands_update",
    "agent_thought_chunk Read first.",
    "agent_message_chunk Reading the notes.",
    "tool_call r1 read pending Read notes.txt",
    "tool_call_update r1 completed",
    "tool_call e1 edit pending Edit notes.txt",
    "tool_call_update e1 completed",
    "tool_call c1 execute pending `echo checked >/dev/stderr`",
    "tool_call_update c1 completed",
    "agent_message_chunk The notes now say gamma.",
  ];
  const got = summary(first.seen.updates);
  check("prompt: the exact sequence of updates", JSON.stringify(got) === JSON.stringify(want), `got  ${JSON.stringify(got, null, 1)}\nwant ${JSON.stringify(want, null, 1)}`);
  const edit = first.seen.updates.find((u) => u.toolCallId === "e1" && u.sessionUpdate === "tool_call_update");
  const diff = edit.content?.[0] ?? {};
  check("edit: the whole file's diff, made in the editor's buffer", edit.content.length === 1 && diff.type === "diff" && diff.path === notes &&
    diff.oldText === "alpha\nbeta\nunsaved\n" && diff.newText === "alpha\ngamma\nunsaved\n" && edit.locations[0].line === 2 &&
    buffers.get(notes) === "alpha\ngamma\nunsaved\n" && fs.readFileSync(notes, "utf8") === "alpha\nbeta\n", JSON.stringify(edit));
  const kinds = first.seen.questions.map((q) => q.toolCall.toolCallId + ":" + q.options.map((o) => o.kind).join("/"));
  check("questions: the edit's and the command's, with their options", JSON.stringify(kinds) === JSON.stringify([
    "e1:allow_once/allow_always/allow_always/allow_always/reject_once/reject_always", "c1:allow_once/allow_always/allow_always/reject_once/reject_always"]), JSON.stringify(kinds));
  const ran = first.seen.updates.find((u) => u.toolCallId === "c1" && u.sessionUpdate === "tool_call_update");
  check("command: its output as text", JSON.stringify(ran.content).includes("checked"), JSON.stringify(ran));

  first.seen.updates.length = 0;
  const running = ctx.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "wait" }] });
  while (first.seen.questions.length < 3) await new Promise((r) => setTimeout(r, 20));
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
  const cancelled = await running;
  check("cancel: an open question is withdrawn and the prompt answers cancelled", cancelled.stopReason === "cancelled", JSON.stringify(cancelled));
  return session.sessionId;
});
first.child.stdin.end();
await new Promise((r) => first.child.on("exit", r));

const second = connect(new Map(), []);
await second.app.connectWith(second.stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
  const got = summary(second.seen.updates).slice(0, 4);
  const want = ["user_message_chunk fix the notes", "agent_thought_chunk Read first.", "agent_message_chunk Reading the notes.", "tool_call r1 read pending Read notes.txt"];
  check("session/load: the history replayed before the answer", JSON.stringify(got) === JSON.stringify(want), JSON.stringify(got));
});
second.child.stdin.end();

console.log(`acp-check: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
