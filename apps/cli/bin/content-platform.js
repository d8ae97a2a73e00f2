#!/usr/bin/env node
// Executable entry of the `content-platform` command: the compiled program lives in dist/ (npm run build).
require('../dist/main.js');
