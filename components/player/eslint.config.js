// eslint 9's flat config for the player's modules, its tests and this file (npm run lint, or npx eslint .)
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['player.js', 'lesson.js', 'node_modules/'] }, // the bundles are esbuild's, made from src/ (test/bundle.test.js)
  js.configs.recommended,
  {
    files: ['src/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['test/**/*.js', 'build.js', 'eslint.config.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: globals.node },
  },
];
