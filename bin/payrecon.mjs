#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so the command works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main(process.argv);
