// ext-tasks-check drives the Tasks extension of protocol 2026-07-28 (SEP-2663) with the
// official requester, @modelcontextprotocol/ext-tasks: a command that the server runs as a task
// settled to its result (tools/call answered with a task, tasks/get until it carries the
// result), another cancelled with tasks/cancel while it runs, and a quick call answered at
// once. ext-tasks talks to the server through a session port; this script's port speaks
// JSON-RPC on 2026-07-28 over stdio or streamable HTTP, framing each request with the
// protocol version, client info and capabilities (the Tasks extension) as that protocol
// wants. It prints one JSON object on stdout for the Go test to check.
//
// usage: node ext-tasks-check.mjs stdio COMMAND [ARGS...]
//        node ext-tasks-check.mjs http URL TOKEN
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { withTasks } from "@modelcontextprotocol/ext-tasks/client";

const PROTOCOL = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";
const clientInfo = { name: "toolhost-compat-ext-tasks", version: "1.0.0" };
const clientCapabilities = { extensions: { [EXTENSION]: {} } };

const [mode, ...rest] = process.argv.slice(2);
let nextId = 0;
const notificationListeners = new Set();
const invalidationListeners = new Set();
let send; // (message) => Promise<response message>
let shutdown = () => {};

function frame(request) {
  const params = request.params ?? {};
  return {
    jsonrpc: "2.0",
    id: ++nextId,
    method: request.method,
    params: {
      ...params,
      _meta: {
        ...(params._meta ?? {}),
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientInfo": clientInfo,
        "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
      },
    },
  };
}

if (mode === "stdio") {
  const child = spawn(rest[0], rest.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    } else if (msg.method !== undefined && msg.id === undefined) {
      for (const l of notificationListeners) l(msg);
    }
  });
  child.on("exit", () => {
    for (const l of invalidationListeners) l(new Error("toolhost exited"));
  });
  send = (msg) =>
    new Promise((resolve) => {
      waiting.set(msg.id, resolve);
      child.stdin.write(JSON.stringify(msg) + "\n");
    });
  shutdown = () => child.stdin.end();
} else if (mode === "http") {
  const [url, token] = rest;
  send = async (msg, signal) => {
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
      "Mcp-Protocol-Version": PROTOCOL,
      "Mcp-Method": msg.method,
    };
    if (msg.method === "tools/call") headers["Mcp-Name"] = msg.params.name;
    const resp = await fetch(url, { method: "POST", headers, body: JSON.stringify(msg), signal });
    const text = await resp.text();
    const candidates = (resp.headers.get("content-type") ?? "").startsWith("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
      : [text];
    for (const c of candidates) {
      try {
        const m = JSON.parse(c);
        if (m.id === msg.id) return m;
      } catch {}
    }
    throw new Error(`no answer to ${msg.method}: HTTP ${resp.status} ${text.slice(0, 300)}`);
  };
} else {
  console.error("usage: ext-tasks-check.mjs stdio COMMAND [ARGS...] | http URL TOKEN");
  process.exit(2);
}

const sent = [];
const port = {
  endpointId: `toolhost-compat-${mode}`,
  taskCapabilities: { generation: "none" },
  invalidated: false,
  async dispatch(request, options = {}) {
    const msg = frame(request);
    sent.push(msg.method);
    const answer = await send(msg, options.signal);
    return answer.error !== undefined ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
  },
  onServerRequest() {
    return () => {};
  },
  onNotification(listener) {
    notificationListeners.add(listener);
    return () => notificationListeners.delete(listener);
  },
  onInvalidated(listener) {
    invalidationListeners.add(listener);
    return () => invalidationListeners.delete(listener);
  },
};

const out = {};
const discovered = await port.dispatch({ method: "server/discover", params: {} });
out.extension = discovered.kind === "result" ? discovered.result.capabilities?.extensions?.[EXTENSION] ?? null : null;
if (out.extension !== null) port.taskCapabilities = { generation: "v2", capabilities: {} };
const session = withTasks(port, {});

const text = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

const first = await session.callTool("terminal_operations", { operation: "run_command", command: "sleep 2; echo done-$((6*7))" });
out.completed = { kind: first.kind, taskId: first.handle?.taskId };
const settled = await first.settle();
out.completed.status = settled.outcome.status;
out.completed.text = text(settled.outcome.result);
out.completed.lastStatus = settled.lastTask?.status;

const second = await session.callTool("terminal_operations", { operation: "run_command", command: "sleep 30; echo never" });
out.cancelled = { kind: second.kind, taskId: second.handle?.taskId };
await new Promise((r) => setTimeout(r, 500));
await second.cancel();
const ended = await second.settle();
out.cancelled.status = ended.outcome.status;

const quick = await session.callTool("think", { thoughts: "a quick call" });
out.quick = { kind: quick.kind, status: (await quick.settle()).outcome.status };

await session.close();
out.sent = [...new Set(sent)].sort();
shutdown();
console.log(JSON.stringify(out));
