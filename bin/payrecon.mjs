#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so the command works right after `npm install`.
import { register } from 'tsx/esm/api';

// `payrecon ... | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

register();
const { main } = await import('../src/cli.ts');
await main(process.argv);
