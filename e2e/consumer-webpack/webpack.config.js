// A throwaway webpack 5 app, as a user sets it up after `npm install vmem webpack webpack-cli`: the
// consumer app's main.js (copied in by e2e/consumer-webpack.spec.ts), bundled with no loaders and
// no vmem-specific settings. webpack copies the worker and every model it names (`new URL`).
import { resolve } from 'node:path';

export default {
  mode: 'production',
  entry: './main.js',
  output: { path: resolve(import.meta.dirname, 'dist'), clean: true },
  // The models are large by nature; webpack's size hints would only repeat that.
  performance: { hints: false },
};
