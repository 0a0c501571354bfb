// tasks-check drives MCP Tasks (2025-11-25) with the TypeScript SDK client's experimental
// Tasks API (the pinned @modelcontextprotocol/sdk): a command run as a task to completion
// (callToolStream: tools/call with a task, tasks/get until done, tasks/result), another
// cancelled with tasks/cancel while it runs, and tasks/list. It prints one JSON object on
// stdout for the Go test to check.
//
// usage: node tasks-check.mjs stdio COMMAND [ARGS...]
//        node tasks-check.mjs http URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sdkTransport } from "./sdk-transport.mjs";

const [mode, ...rest] = process.argv.slice(2);
const transport = sdkTransport(mode, rest, "usage: tasks-check.mjs stdio COMMAND [ARGS...] | http URL TOKEN");

const client = new Client(
  { name: "toolhost-compat-ts-tasks", version: "1.0.0" },
  { capabilities: { tasks: { list: {}, cancel: {} } } },
);
await client.connect(transport);
const out = { serverTasks: client.getServerCapabilities()?.tasks ?? null };

// The SDK calls a tool as a task when tools/list marks it (execution.taskSupport).
const { tools } = await client.listTools();
out.taskTools = tools.filter((t) => t.execution?.taskSupport && t.execution.taskSupport !== "forbidden").map((t) => t.name);

async function drive(command, onCreated) {
  const seen = { types: [], statuses: [] };
  const stream = client.experimental.tasks.callToolStream(
    { name: "terminal_operations", arguments: { operation: "run_command", command } },
    undefined,
    { task: { ttl: 60000 }, timeout: 120000 },
  );
  for await (const m of stream) {
    seen.types.push(m.type);
    if (m.type === "taskCreated") {
      seen.taskId = m.task.taskId;
      seen.created = m.task.status;
      if (onCreated) await onCreated(m.task.taskId);
    } else if (m.type === "taskStatus") {
      seen.statuses.push(m.task.status);
    } else if (m.type === "result") {
      seen.text = (m.result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
      seen.isError = m.result.isError ?? false;
    } else if (m.type === "error") {
      seen.error = String(m.error?.message ?? m.error);
    }
  }
  return seen;
}

out.completed = await drive("sleep 2; echo done-$((6*7))");
out.cancelled = await drive("sleep 30; echo never", async (taskId) => {
  await new Promise((r) => setTimeout(r, 500));
  out.cancelAnswer = (await client.experimental.tasks.cancelTask(taskId)).status;
});
const got = await client.experimental.tasks.getTask(out.cancelled.taskId);
out.cancelledStatus = got.status;
const listed = await client.experimental.tasks.listTasks();
out.listed = listed.tasks.map((t) => t.taskId);
try {
  await client.experimental.tasks.getTask("exec_nonesuch");
  out.unknown = "found";
} catch (e) {
  out.unknown = `error ${e.code}`;
}
await client.close();
console.log(JSON.stringify(out));
