// The process entry of the CLI: `node dist/src/main.js` in production, bin/payrecon.mjs (through tsx) from a checkout.
import { main } from './cli.ts';

// `payrecon ... | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

await main(process.argv);
