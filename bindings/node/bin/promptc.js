#!/usr/bin/env node
'use strict'
// The `promptc` command of the npm package: the binary's command line, compiled into the
// native addon (runCli), run in this process. The addon comes from the per-platform package
// npm installed as an optional dependency (see native.js), so no second download is needed.

const { runCli } = require('../native.js')

// The command writes to the process's file descriptors directly, not through Node's streams;
// its exit code is the command's (0 clean, 1 findings, 2 errors).
process.exitCode = runCli(['promptc', ...process.argv.slice(2)])
