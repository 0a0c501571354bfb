// The OpenAI Agents SDK's MCP server classes against toolhost: list the tools as an agent gets
// them, call one per tool, and page a cut result. Usage:
//   node agents-check.mjs CALLS_JSON stdio COMMAND ARGS...
//   node agents-check.mjs CALLS_JSON http URL TOKEN
// Prints one JSON line: {tools, calls: {tool: {isError, text}}, cut, page}.
import { MCPServerStdio, MCPServerStreamableHttp, setTracingDisabled } from "@openai/agents";

setTracingDisabled(true);
const [, , callsJSON, transport, ...rest] = process.argv;
const { calls, cut } = JSON.parse(callsJSON);

let server;
if (transport === "stdio") {
  const [command, ...args] = rest;
  server = new MCPServerStdio({ name: "toolhost", command, args, cacheToolsList: true });
} else {
  const [url, token] = rest;
  server = new MCPServerStreamableHttp({ name: "toolhost", url, requestInit: { headers: { Authorization: `Bearer ${token}` } } });
}

// callTool returns the content blocks; an error result comes back as blocks too (toolhost's
// start "error CODE:"), or throws.
async function call(tool, args) {
  try {
    const content = await server.callTool(tool, args);
    const text = content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
    const isError = /^error [a-z_]+: /.test(text);
    return { isError, text };
  } catch (e) {
    return { isError: true, text: String(e && e.message ? e.message : e) };
  }
}

await server.connect();
try {
  const tools = (await server.listTools()).map((t) => t.name);
  const out = { tools, calls: {} };
  for (const c of calls) out.calls[c.tool] = await call(c.tool, c.args);
  out.cut = await call(cut.tool, cut.args);
  const id = (out.cut.text.match(/r[0-9a-f]{12}/) || [""])[0];
  out.page = await call("read_tool_result", { id, offset: 0 });
  console.log(JSON.stringify(out));
} finally {
  await server.close();
}
