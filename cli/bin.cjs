#!/usr/bin/env node
// `cotaverde` bin: registers tsx (TypeScript loader) and runs cli/index.ts.
require('tsx/cjs');
require('./index.ts');
