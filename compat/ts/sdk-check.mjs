// sdk-check drives toolhost with the TypeScript MCP SDK client (the pinned
// @modelcontextprotocol/sdk) and prints one JSON object on stdout for the Go test to check:
// the negotiated protocol version, the tool list, schema problems found by strict validation,
// and a tool call's result.
//
// usage: node sdk-check.mjs stdio COMMAND [ARGS...]
//        node sdk-check.mjs http URL TOKEN
//        node sdk-check.mjs selftest   (the portability rules must catch known-bad schemas)
//        (the tool call reads notes.txt in toolhost's working directory)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { sdkTransport } from "./sdk-transport.mjs";

const [mode, ...rest] = process.argv.slice(2);

if (mode === "selftest") {
  const bad = {
    "top-level anyOf": { type: "object", anyOf: [{ required: ["a"] }] },
    "top-level type": { type: "array", items: { type: "string" } },
    "union type": { type: "object", properties: { a: { type: ["null", "string"] } } },
    "nested oneOf": { type: "object", properties: { a: { oneOf: [{ type: "string" }, { type: "integer" }] } } },
    "missing type": { type: "object", properties: { a: { description: "no type" } } },
    "array item without type": { type: "object", properties: { a: { type: "array", items: {} } } },
  };
  const missed = Object.entries(bad).filter(([name, schema]) => portability(name, schema).length === 0).map(([name]) => name);
  const good = portability("good", { type: "object", properties: { a: { type: "string", enum: ["x"] } }, required: ["a"] });
  console.log(JSON.stringify({ missed, falseAlarms: good }));
  process.exit(0);
}

const transport = sdkTransport(mode, rest, "usage: sdk-check.mjs stdio COMMAND [ARGS...] | http URL TOKEN");

const client = new Client({ name: "toolhost-compat-ts-sdk", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const problems = [];
for (const tool of tools) {
  problems.push(...portability(tool.name, tool.inputSchema));
  // Strict mode refuses unknown keywords, ambiguous types and other sloppiness that some
  // model APIs reject; the draft follows the schema's own $schema (2020-12 by default).
  const draft2020 = !tool.inputSchema.$schema || tool.inputSchema.$schema.includes("2020-12");
  const ajv = draft2020 ? new Ajv2020({ strict: true, allErrors: true }) : new Ajv({ strict: true, allErrors: true });
  try {
    ajv.compile(tool.inputSchema);
  } catch (e) {
    problems.push(`${tool.name}: ajv strict: ${e.message}`);
  }
}

const result = await client.callTool({ name: "file_operations", arguments: { operation: "read_file", path: "notes.txt" } });
const text = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

console.log(JSON.stringify({
  protocol: transport.protocolVersion ?? null,
  server: client.getServerVersion(),
  tools: tools.map((t) => t.name),
  problems,
  call: { isError: result.isError ?? false, text, structured: result.structuredContent ?? null },
}));
await client.close();

// portability reports what the model APIs refuse in a tool's input schema: Anthropic and
// OpenAI refuse combinators at the top level, Gemini refuses union types ("type": [...]), and
// every property needs a concrete type.
function portability(name, schema) {
  const out = [];
  if (schema.type !== "object") out.push(`${name}: top-level type is ${JSON.stringify(schema.type)}, want "object"`);
  for (const k of ["oneOf", "anyOf", "allOf", "not", "if", "then", "else"]) {
    if (k in schema) out.push(`${name}: top-level ${k}`);
  }
  const walk = (s, path) => {
    if (!s || typeof s !== "object") return;
    if (Array.isArray(s.type)) out.push(`${name}: ${path}: union type ${JSON.stringify(s.type)}`);
    for (const k of ["oneOf", "anyOf", "allOf"]) {
      if (k in s) out.push(`${name}: ${path}: ${k}`);
    }
    for (const [p, sub] of Object.entries(s.properties ?? {})) {
      if (!sub.type && !sub.$ref && !sub.enum && !sub.const) out.push(`${name}: ${path}.${p}: no type`);
      walk(sub, `${path}.${p}`);
    }
    if (s.items) {
      if (!s.items.type && !s.items.$ref) out.push(`${name}: ${path}[]: no type`);
      walk(s.items, `${path}[]`);
    }
    if (s.type === "array" && !s.items) out.push(`${name}: ${path}: array without items`);
  };
  walk(schema, "$");
  return out;
}
