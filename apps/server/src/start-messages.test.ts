import { describe, expect, it } from 'vitest';
import { cliName } from './start-messages.js';

describe('cliName: the command the start messages suggest', () => {
  it('should name npx with the package when the bin lies in npx’s cache', () => {
    expect(cliName({}, '/home/ada/.npm/_npx/0f3c9a1b2c3d4e5f/node_modules/.bin/quantum-chat')).toBe('npx @quantum-chat/server');
    expect(cliName({}, 'C:\\Users\\ada\\AppData\\Local\\npm-cache\\_npx\\0f3c\\node_modules\\.bin\\quantum-chat')).toBe('npx @quantum-chat/server');
  });

  it('should name npx with the package for a project’s own install too (npx finds it there)', () => {
    expect(cliName({}, '/srv/app/node_modules/.bin/quantum-chat')).toBe('npx @quantum-chat/server');
  });

  it('should name the plain bin for a global install or the built file', () => {
    expect(cliName({}, '/usr/local/bin/quantum-chat')).toBe('quantum-chat');
    expect(cliName({}, '/work/quantum-chat/apps/server/dist/cli.js')).toBe('quantum-chat');
    expect(cliName({}, undefined)).toBe('quantum-chat');
  });

  it('should ignore npm variables inherited from whatever started the parent process', () => {
    // `npx -y pnpm test` leaves npm_command=exec in every child, the server under test included.
    const inherited = { npm_command: 'exec', npm_lifecycle_event: 'test', npm_execpath: '/usr/lib/node_modules/npm/bin/npx-cli.js' };
    expect(cliName(inherited, '/work/quantum-chat/apps/server/dist/cli.js')).toBe('quantum-chat');
  });

  it('should prefer the name the repository’s launcher sets', () => {
    expect(cliName({ QUANTUM_CHAT_CLI_NAME: 'pnpm quantum-chat' }, '/home/ada/.npm/_npx/0f3c/node_modules/.bin/quantum-chat')).toBe('pnpm quantum-chat');
  });
});
