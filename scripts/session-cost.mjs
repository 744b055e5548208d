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
import { createHash } from "node:crypto";
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

// The prompt cache, as Anthropic's API documents it: a request's blocks (tools, system, then each message's
// blocks) form a prefix; a block marked with cache_control writes the prefix up to it, and a later request
// reads from the cache the longest prefix written, found at one of its own marks or up to 20 blocks before.
// Read tokens cost 0.1 of an input token, written ones 1.25 (the 5-minute cache), the rest 1.
const cache = { written: new Set(), tokens: 0, weighted: 0 };
function price(req) {
  const blocks = [...(req.tools ?? []), ...(typeof req.system === "string" ? [{ type: "text", text: req.system }] : (req.system ?? []))];
  for (const m of req.messages ?? []) {
    blocks.push({ role: m.role }, ...(typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content));
  }
  let prefix = "", tokens = 0;
  const prefixes = [], ends = [], marks = [];
  blocks.forEach((b, i) => {
    const { cache_control, ...plain } = b;
    const text = JSON.stringify(plain);
    prefix = createHash("sha256").update(prefix + text).digest("hex");
    tokens += Math.ceil(text.length / 4);
    prefixes.push(prefix), ends.push(tokens);
    if (cache_control) marks.push(i);
  });
  let read = 0;
  for (const i of marks) {
    for (let j = i; j >= Math.max(0, i - 20); j--) {
      if (cache.written.has(prefixes[j])) {
        read = Math.max(read, ends[j]);
        break;
      }
    }
  }
  marks.forEach((i) => cache.written.add(prefixes[i]));
  const upTo = marks.length ? ends[marks.at(-1)] : 0;
  cache.tokens += tokens;
  cache.weighted += 0.1 * read + 1.25 * (upTo - read) + (tokens - upTo);
  return { input_tokens: tokens - upTo, cache_creation_input_tokens: upTo - read, cache_read_input_tokens: read };
}
const event = (res, type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

// reply streams one step: a tool call reading the next file, or the final answer, with the usage of
// price (a token for each 4 bytes of a block), as agents size their context by it.
function reply(res, step, usage, text = "done") {
  res.writeHead(200, { "content-type": "text/event-stream" });
  usage = { ...usage, output_tokens: 1 };
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
    let tools = false, usage = { input_tokens: Math.ceil(body.length / 4) };
    try {
      const req = JSON.parse(body);
      tools = (req.tools ?? []).length > 0 && !asksForSummary(req);
      usage = price(req);
    } catch {}
    if (!req.url.startsWith("/v1/messages") || req.url.includes("count_tokens")) {
      sent.side++, (sent.sideBytes += body.length);
      res.writeHead(404).end();
      return;
    }
    if (tools) reply(res, sent.main++, usage), (sent.mainBytes += body.length);
    else reply(res, -1, usage, "Summary: the task is to read the files; the files read so far are in the results above."), sent.side++, (sent.sideBytes += body.length);
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
    const ratio = (cache.weighted / Math.max(1, cache.tokens)).toFixed(3);
    console.log(`exit ${code}; ${sent.main} model requests with tools, ${sent.mainBytes} bytes; ${sent.side} side requests, ${sent.sideBytes} bytes; ` +
      `input ${cache.tokens} tokens, ${Math.round(cache.weighted)} at cache prices (${ratio}x); CPU ${((user + sys) * 1000).toFixed(0)} ms (user ${user}s, sys ${sys}s)`);
    if (code !== 0) console.log(`the agent failed; its stderr is in ${join(ws, ".agent-stderr")}`);
    else rmSync(ws, { recursive: true, force: true });
    process.exit(code === 0 && sent.main > 0 ? 0 : 1);
  });
});
