#!/usr/bin/env node
// kubectl plugin entry point: `kubectl karta inspect ...` runs `karta inspect ...` (kubectl finds
// `kubectl-karta` on PATH and passes the arguments after `karta`).
import "./karta.js";
