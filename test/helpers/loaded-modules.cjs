// Preloaded (`node --require`) into a program under test: when the process exits, writes the files of
// every CommonJS module it loaded (require.cache, which also holds those loaded by an ES import) to the
// JSON file named by VEXIL_TEST_LOADED_MODULES. For tests of what a configuration loads.

const { writeFileSync } = require('node:fs');

const target = process.env.VEXIL_TEST_LOADED_MODULES;
if (target) {
  process.on('exit', () => writeFileSync(target, JSON.stringify(Object.keys(require.cache))));
}
