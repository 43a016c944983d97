#!/usr/bin/env node
// Entry point of the `karta` command: the compiled CLI does the work.
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));
