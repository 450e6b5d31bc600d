#!/usr/bin/env node
// Runs the obsmcp binary that npm installed beside this launcher as the optional dependency
// obsmcp-<platform>-<arch>. The package has no install script (package managers block or warn about them), so this
// file is the command: it replaces itself with the binary where Node can (process.execve, Node 22.15+ on Unix), so no
// Node process stays between an AI client and the bridge; elsewhere it runs the binary as a child and mirrors it.
'use strict';

const path = require('node:path');

const SUPPORTED = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
const platform = `${process.platform}-${process.arch}`;
const platformPackage = `obsmcp-${platform}`;

/** The binary's path, or null when the platform package is not installed. */
function findBinary() {
  let manifest;
  try {
    manifest = require.resolve(`${platformPackage}/package.json`);
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') return null;
    throw error;
  }
  const name = process.platform === 'win32' ? 'obsmcp.exe' : 'obsmcp';
  return path.join(path.dirname(manifest), 'bin', name);
}

/** True on Linux with musl libc, where the glibc binaries of the linux packages cannot run. */
function isMusl() {
  if (process.platform !== 'linux' || !process.report) return false;
  // Costs a few milliseconds, so it is asked only on the way to an error message.
  return !process.report.getReport().header.glibcVersionRuntime;
}

const OTHER_WAYS = [
  'other ways to install obsmcp:',
  '  cargo install --locked obsmcp       (builds it; needs Rust 1.89 or newer)',
  '  uv tool install obsmcp              (or: pipx install obsmcp; the PyPI wheel holds the same binary)',
  '  a binary or Claude Desktop bundle   from https://github.com/obsmcp/obsmcp/releases',
];

function failMissing() {
  const lines = [];
  if (!SUPPORTED.includes(platform)) {
    lines.push(`obsmcp: there is no prebuilt binary for ${platform} (prebuilt: ${SUPPORTED.join(', ')}).`);
  } else if (isMusl()) {
    lines.push(`obsmcp: the package ${platformPackage} holds a glibc binary, and this Linux uses musl libc.`);
  } else {
    lines.push(
      `obsmcp: the package ${platformPackage}, which holds the obsmcp binary for this platform, is not installed.`,
      'npm installs it as an optional dependency of obsmcp; it is left out when optional dependencies are omitted',
      '(--omit=optional, --no-optional) or when the lockfile was written on another platform.',
      `hint: run \`npm install obsmcp ${platformPackage}\` where obsmcp was installed (with -g if it was global),`,
      'or install obsmcp another way.',
    );
  }
  process.stderr.write(`${[...lines, ...OTHER_WAYS].join('\n')}\n`);
  process.exit(1);
}

function failToStart(binary, error) {
  process.stderr.write(
    `obsmcp: could not run ${binary}: ${error.message}\n` +
      `hint: reinstall the package ${platformPackage} (npm install obsmcp ${platformPackage}).\n`,
  );
  process.exit(1);
}

/** Starts the binary as a child, passes on the signals a terminal or a client sends, and exits as it exited. */
function runAsChild(binary, args) {
  const { spawn } = require('node:child_process');
  const child = spawn(binary, args, { stdio: 'inherit' });
  child.on('error', (error) => failToStart(binary, error));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      // A Windows console delivers Ctrl+C to the child itself, and kill() there can only end it outright; the handler
      // still keeps this process alive until the child has finished.
      if (process.platform === 'win32' && signal === 'SIGINT') return;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => {
    if (signal) {
      const { signals } = require('node:os').constants;
      process.exit(128 + (signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

const binary = findBinary();
if (binary === null) failMissing();
const args = process.argv.slice(2);

if (typeof process.execve === 'function') {
  // Node ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across execve; a handler is reset to the
  // default there, so the binary starts with the dispositions it would have had without Node.
  process.on('SIGPIPE', () => {});
  process.on('SIGXFSZ', () => {});
  // A failed execve aborts Node with a native stack trace instead of throwing, so the usual causes are ruled out first.
  const fs = require('node:fs');
  try {
    fs.accessSync(binary, fs.constants.X_OK);
  } catch (error) {
    failToStart(binary, error);
  }
  process.execve(binary, [binary, ...args], process.env);
} else {
  runAsChild(binary, args);
}
