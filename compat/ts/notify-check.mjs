// notify-check drives toolhost's announcement of finished background work with the TypeScript
// SDK client (the pinned @modelcontextprotocol/sdk): it sets a log level, subscribes to the
// conversation's command resource (found in resources/list), runs a command past its yield,
// waits for the log message that announces its end, then makes one more tool call. It prints
// one JSON object on stdout with what the client received, for the Go test to check.
//
// usage: node notify-check.mjs COMMAND_LINE stdio COMMAND [ARGS...]
//        node notify-check.mjs COMMAND_LINE http URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { sdkTransport } from "./sdk-transport.mjs";

const [commandLine, mode, ...rest] = process.argv.slice(2);
const transport = sdkTransport(mode, rest, "usage: notify-check.mjs COMMAND_LINE stdio COMMAND [ARGS...] | COMMAND_LINE http URL TOKEN");

const out = { updated: [], logs: [] };
const client = new Client({ name: "toolhost-compat-ts-notify", version: "1.0.0" });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  out.updated.push(n.params.uri);
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  out.logs.push({ level: n.params.level, logger: n.params.logger ?? "", data: n.params.data });
});
await client.connect(transport);
out.protocol = transport.protocolVersion ?? null;

await client.setLoggingLevel("info");
const { resources } = await client.listResources();
out.commandsURI = resources.map((r) => r.uri).find((u) => /^toolhost:\/\/conversations\/[^/]+\/commands$/.test(u)) ?? "";
if (out.commandsURI) await client.subscribeResource({ uri: out.commandsURI });

const text = (r) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
out.run = text(await client.callTool({
  name: "terminal_operations",
  arguments: { operation: "run_command", command: commandLine, yield_seconds: 1 },
}));

// The announcement comes when the command ends; the next result carries the notice.
const announced = () => out.logs.some((l) => l.logger === "toolhost.background");
for (const deadline = Date.now() + 20000; !announced() && Date.now() < deadline; ) {
  await new Promise((r) => setTimeout(r, 100));
}
out.next = text(await client.callTool({ name: "think", arguments: { thoughts: "after the background command" } }));
await client.close();
console.log(JSON.stringify(out));
