// Native addons (better-sqlite3) build with node-gyp, which downloads Node's headers unless
// told where they are. Machines without internet access often have them installed beside
// Node (/usr/include/node); point node-gyp there when they match the running Node.
const fs = require('node:fs');
const path = require('node:path');

function localNodeDir() {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  try {
    const header = fs.readFileSync(path.join(prefix, 'include/node/node_version.h'), 'utf8');
    const version = ['MAJOR', 'MINOR', 'PATCH'].map((part) => new RegExp(`#define NODE_${part}_VERSION (\\d+)`).exec(header)?.[1]).join('.');
    return `v${version}` === process.version ? prefix : undefined;
  } catch {
    return undefined;
  }
}

module.exports = {
  hooks: {
    updateConfig(config) {
      const nodedir = process.env.npm_config_nodedir ?? localNodeDir();
      if (nodedir === undefined) return config;
      return { ...config, extraEnv: { ...config.extraEnv, npm_config_nodedir: nodedir } };
    },
  },
};
