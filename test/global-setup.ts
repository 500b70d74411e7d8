import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Tests run against a home of their own (never the user's ~/.botpsy). Model
 * tests find the real SmolLM2 file through BOTPSY_TEST_MODEL.
 */
export default function setup(): void {
  const home = resolve(".botpsy-test");
  mkdirSync(join(home, "models"), { recursive: true });
  process.env.BOTPSY_TEST_HOME = home;
  process.env.BOTPSY_TEST_MODEL = join(home, "models", "SmolLM2-135M-Instruct.Q4_1.gguf");
}
