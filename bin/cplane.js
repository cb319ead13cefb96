#!/usr/bin/env node
// The sources are compiled to dist/ by `npm install` (the prepare script); this shim only starts them.
import '../dist/cli/main.js';
