import { defineConfig } from "vitest/config";

/**
 * The training tests: they create botpsy's training environment (about
 * 5.6 GB of Python packages, minutes to install) and train for real, so they
 * run only on request: `BOTPSY_TUNE_TEST=1 npx vitest run --config vitest.tune.config.ts`.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.tune.test.ts"],
    testTimeout: 60 * 60_000,
    hookTimeout: 60 * 60_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["test/global-setup.ts"],
  },
});
