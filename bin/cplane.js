#!/usr/bin/env node
// The sources are compiled and bundled to dist/bundle/ by `npm install` (the prepare script); this shim only starts them.
import '../dist/bundle/cplane.js';
