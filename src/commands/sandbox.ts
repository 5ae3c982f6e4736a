import type { Command } from 'commander';

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the provider emulator (all seven operations, webhooks, a control interface)')
    .option('--port <n>', 'port to listen on', '4010')
    .action(async () => {
      throw new Error('sandbox: not built yet');
    });
}
