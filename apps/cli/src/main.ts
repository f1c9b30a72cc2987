#!/usr/bin/env node
import { runCli } from './run-cli';

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
