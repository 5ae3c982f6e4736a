#!/usr/bin/env node
// From a checkout: runs the TypeScript sources through tsx (a dev dependency), so the command works
// right after `npm install`. Production runs the compiled build instead: `node dist/src/main.js`.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
