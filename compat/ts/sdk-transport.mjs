// sdk-transport gives the check scripts that drive toolhost with the TypeScript MCP SDK client
// (sdk-check, tasks-check, notify-check) the transport their command line names.

import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// sdkTransport is the SDK client transport to toolhost for mode and rest: "stdio" with the
// server's COMMAND [ARGS...], or "http" with its URL and bearer TOKEN. On any other mode it
// prints usage and exits 2.
export function sdkTransport(mode, rest, usage) {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" });
  }
  if (mode === "http") {
    return new StreamableHTTPClientTransport(new URL(rest[0]), {
      requestInit: { headers: { Authorization: `Bearer ${rest[1]}` } },
    });
  }
  console.error(usage);
  process.exit(2);
}
