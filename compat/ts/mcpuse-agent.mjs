// mcp-use's agent (MCPAgent over LangChain's ChatOpenAI) with toolhost as its MCP server and the
// suite's scripted model as its OpenAI-compatible endpoint, as people run it with a local model.
// Usage:
//   node mcpuse-agent.mjs MODEL_URL PROMPT stdio COMMAND ARGS...
//   node mcpuse-agent.mjs MODEL_URL PROMPT http URL TOKEN
// Prints one JSON line: {answer}.
import { MCPAgent, MCPClient } from "mcp-use";
import { ChatOpenAI } from "@langchain/openai";

const [, , modelURL, prompt, transport, ...rest] = process.argv;
let server;
if (transport === "stdio") {
  const [command, ...args] = rest;
  server = { command, args };
} else {
  const [url, token] = rest;
  server = { url, headers: { Authorization: `Bearer ${token}` } };
}
const client = new MCPClient({ mcpServers: { toolhost: server } });
const llm = new ChatOpenAI({
  model: "compat-model",
  apiKey: process.env.OPENAI_API_KEY,
  configuration: { baseURL: modelURL },
  maxRetries: 0,
});
const agent = new MCPAgent({ llm, client, maxSteps: 40 });
try {
  const answer = await agent.run(prompt);
  console.log(JSON.stringify({ answer: String(answer) }));
} finally {
  await client.closeAllSessions();
}
