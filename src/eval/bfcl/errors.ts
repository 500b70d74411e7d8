import { BotpsyError } from "../../errors.js";

/** BFCL data that cannot be read or used as it is: a missing file, a bad line, an unknown category. */
export class BfclDataError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("bfcl_data", message, options);
  }
}

/** A Python call string (from the ground truth) that does not parse. */
export class PythonCallSyntaxError extends BotpsyError {
  readonly source: string;
  readonly position: number;

  constructor(source: string, position: number, problem: string) {
    super(
      "bfcl_python_syntax",
      `Cannot parse the Python call ${JSON.stringify(source)} at character ${position}: ${problem}. Ground-truth calls look like name(arg=value, ...) with literal values.`,
    );
    this.source = source;
    this.position = position;
  }
}
