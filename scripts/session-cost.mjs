// session-cost.mjs runs one agent through a scripted session against a local model that speaks the
// Anthropic Messages API, and prints what the session sent and the CPU the agent used. Any agent that
// takes ANTHROPIC_BASE_URL can be measured the same way, so two agents compare side by side.
//
//   node scripts/session-cost.mjs [--steps 10] [--files 5] [--lines 20] [--read read_file:path] -- AGENT ARGS...
//
// The workspace (a new temporary folder, the agent's working folder and HOME) holds FILES files of LINES
// lines (20 lines are about 670 bytes); the model asks for one file a step, in turn, so with steps > files each
// file is read again unchanged, then answers "done". --read names the agent's read tool and its path
// key (an absolute path is sent). Only requests that carry tools count: an agent's side requests (a
// title, a quota check, a compaction's summary, answered with text) are listed apart. SESSION_COST_DUMP=DIR
// writes each request's body there. Examples:
//
//   node scripts/session-cost.mjs --steps 50 --files 25 -- ./minicode --provider anthropic -p "read the files" --max-turns 100
//   node scripts/session-cost.mjs --steps 50 --files 25 --read Read:file_path -- claude -p "read the files" --allowedTools Read
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const dash = args.indexOf("--");
if (dash < 0 || dash === args.length - 1) {
  console.error("usage: node scripts/session-cost.mjs [--steps N] [--files N] [--lines N] [--read TOOL:KEY] -- AGENT ARGS...");
  process.exit(2);
}
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i < dash ? args[i + 1] : def;
};
const steps = Number(opt("--steps", "10"));
const files = Number(opt("--files", "5"));
const lines = Number(opt("--lines", "20"));
const [tool, key] = opt("--read", "read_file:path").split(":");

const ws = mkdtempSync(join(tmpdir(), "session-cost-"));
for (let i = 0; i < files; i++) {
  let text = "";
  for (let j = 0; j < lines; j++) text += `line ${j} of file ${i}: some text here\n`;
  writeFileSync(join(ws, `f${i}.txt`), text);
}

const sent = { main: 0, mainBytes: 0, side: 0, sideBytes: 0 };
const event = (res, type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

// reply streams one step: a tool call reading the next file, or the final answer.
// The usage it reports counts a token for each 4 bytes of the request, as agents size their context by it.
function reply(res, step, bytes, text = "done") {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const usage = { input_tokens: Math.ceil(bytes / 4), output_tokens: 1 };
  event(res, "message_start", { message: { id: `msg_${step}`, type: "message", role: "assistant", model: "fake", content: [], stop_reason: null, usage } });
  const call = step >= 0 && step < steps;
  const block = call ? { type: "tool_use", id: `toolu_${step}`, name: tool, input: {} } : { type: "text", text: "" };
  event(res, "content_block_start", { index: 0, content_block: block });
  const delta = call ? { type: "input_json_delta", partial_json: JSON.stringify({ [key]: join(ws, `f${step % files}.txt`) }) } : { type: "text_delta", text };
  event(res, "content_block_delta", { index: 0, delta });
  event(res, "content_block_stop", { index: 0 });
  event(res, "message_delta", { delta: { stop_reason: call ? "tool_use" : "end_turn" }, usage: { output_tokens: 1 } });
  event(res, "message_stop", {});
  res.end();
}

// asksForSummary tells an agent's compaction request from a step: it holds the whole conversation (no fewer
// messages than the step before) and the user's side of it ends with text (the request for a summary), not
// with the results of the calls.
let stepMessages = 0;
function asksForSummary(req) {
  const msgs = req.messages ?? [];
  const user = msgs.findLast((m) => m.role === "user")?.content;
  const endsWithText = !Array.isArray(user) || user.at(-1)?.type === "text";
  if (stepMessages > 0 && msgs.length >= stepMessages && endsWithText) return true;
  stepMessages = msgs.length;
  return false;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    if (process.env.SESSION_COST_DUMP) writeFileSync(join(process.env.SESSION_COST_DUMP, `${sent.main + sent.side}.json`), body);
    let tools = false;
    try {
      const req = JSON.parse(body);
      tools = (req.tools ?? []).length > 0 && !asksForSummary(req);
    } catch {}
    if (!req.url.startsWith("/v1/messages") || req.url.includes("count_tokens")) {
      sent.side++, (sent.sideBytes += body.length);
      res.writeHead(404).end();
      return;
    }
    if (tools) reply(res, sent.main++, body.length), (sent.mainBytes += body.length);
    else reply(res, -1, body.length, "Summary: the task is to read the files; the files read so far are in the results above."), sent.side++, (sent.sideBytes += body.length);
  });
});

server.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const own = Object.entries(process.env).filter(([k]) => !/^(MINICODE_|OPENAI_|OPENROUTER_|GEMINI_|ANTHROPIC_|CLAUDE_)/.test(k));
  const env = { ...Object.fromEntries(own), HOME: ws, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-session-cost", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" };
  // bash's times prints the CPU its children used: the agent and all it started.
  const quoted = args.slice(dash + 1).map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn("bash", ["-c", `${quoted} >/dev/null 2>"$SESSION_COST_ERR" </dev/null; s=$?; times; exit $s`], { cwd: ws, env: { ...env, SESSION_COST_ERR: join(ws, ".agent-stderr") }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.on("exit", (code) => {
    server.close();
    const [user, sys] = (out.trim().split("\n")[1] ?? "").split(/\s+/).map((t) => {
      const m = /^(\d+)m([\d.]+)s$/.exec(t);
      return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
    });
    console.log(`exit ${code}; ${sent.main} model requests with tools, ${sent.mainBytes} bytes; ${sent.side} side requests, ${sent.sideBytes} bytes; CPU ${((user + sys) * 1000).toFixed(0)} ms (user ${user}s, sys ${sys}s)`);
    if (code !== 0) console.log(`the agent failed; its stderr is in ${join(ws, ".agent-stderr")}`);
    else rmSync(ws, { recursive: true, force: true });
    process.exit(code === 0 && sent.main > 0 ? 0 : 1);
  });
});
