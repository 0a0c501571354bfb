#!/usr/bin/env node
// toolhost-mcp: starts the toolhost binary that npm installed for this machine (the
// optional dependency toolhost-mcp-<platform>-<arch>) with the same arguments, standard
// input, output and error, and exits with its status. `npx -y toolhost-mcp stdio` serves
// MCP over stdio.
"use strict";
const { spawn } = require("child_process");
const path = require("path");

const arch = { x64: "x64", arm64: "arm64" }[process.arch];
const platform = { linux: "linux", darwin: "darwin", win32: "win32" }[process.platform];
const pkg = platform && arch ? `toolhost-mcp-${platform}-${arch}` : "";
const exe = process.platform === "win32" ? "toolhost.exe" : "toolhost";

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch (e) {
  process.stderr.write(
    `toolhost-mcp: no toolhost binary for ${process.platform}/${process.arch}` +
      (pkg ? ` (the optional package ${pkg} is not installed: reinstall without --no-optional / --omit=optional)` : " (not a supported platform)") +
      "\n",
  );
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    try {
      child.kill(sig);
    } catch (_) {}
  });
}
child.on("error", (err) => {
  process.stderr.write(`toolhost-mcp: cannot start ${bin}: ${err.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
