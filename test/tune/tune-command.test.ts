import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { registerTuneCommand } from "../../src/cli/commands/tune.js";
import { InvalidInputError } from "../../src/errors.js";

/** `botpsy tune …` through the command's own parsing and action. */
async function botpsyTune(args: string[]): Promise<void> {
  const program = new Command().exitOverride();
  registerTuneCommand(program);
  await program.parseAsync(["tune", ...args], { from: "user" });
}

describe("botpsy tune data --recipes", () => {
  it("offers the recipe sets, v3 by default", () => {
    const program = new Command();
    registerTuneCommand(program);
    const data = program.commands.find((command) => command.name() === "tune")!.commands.find((command) => command.name() === "data")!;
    const option = data.options.find((candidate) => candidate.long === "--recipes")!;
    expect(option.defaultValue).toBe("v3");
    expect(option.description).toContain("v3 or v4 or v5 or v6");
  });

  it("refuses an unknown set before it loads a model, naming the sets there are", async () => {
    const refusal = botpsyTune(["data", "--recipes", "v9", "--count", "1"]);
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refusal).rejects.toMatchObject({ code: "invalid_option", message: "--recipes v9 is not a recipe set: choose one of v3, v4, v5, v6, v7." });
  });
});

describe("botpsy tune train --device", () => {
  it("is auto by default: the GPU when torch sees one, else the CPU", () => {
    const program = new Command();
    registerTuneCommand(program);
    const train = program.commands.find((command) => command.name() === "tune")!.commands.find((command) => command.name() === "train")!;
    expect(train.options.find((candidate) => candidate.long === "--device")!.defaultValue).toBe("auto");
  });

  it("refuses a device torch cannot train on before it reads the data or the model", async () => {
    const refusal = botpsyTune(["train", "--base", "smollm2-135m-instruct-q4_1", "--device", "tpu"]);
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refusal).rejects.toMatchObject({ message: "--device tpu is not a training device: give cpu, cuda or auto." });
  });
});
