import { BotpsyError } from "../errors.js";

/** Errors of `botpsy tune`: each says what to run or change. */
export class TuneError extends BotpsyError {}

export class TrainingEnvironmentError extends TuneError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("tune_environment", message, options);
  }
}

export class TrainingFailedError extends TuneError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("tune_training_failed", message, options);
  }
}

export class TrainingDataError extends TuneError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("tune_data", message, options);
  }
}
