import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { withSpacesTrimmed } from "../../src/agent/call-planning.js";
import { withToolFix } from "../../src/agent/repeated-calls.js";
import type { CallRecord } from "../../src/agent/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool, ToolError } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { freshNotesProfile } from "./fixtures/notes-app.js";

const call = (args: Record<string, unknown>, name = "open_booking") => ({ id: "call-1", name, arguments: args });
const failed = (args: Record<string, unknown>, retryWith?: Record<string, string>, name = "open_booking"): CallRecord => ({
  call: call(args, name),
  risk: "read",
  status: "error",
  error: { code: "booking_not_found", message: "No booking.", ...(retryWith !== undefined ? { retryWith } : {}) },
  durationMs: 1,
  step: 1,
});

/** A booking tool that finds only booking-2 and names it as the fix for any other id. */
function bookingTool(opened: string[]) {
  return defineTool({
    name: "open_booking",
    description: "Show one booking.",
    input: z.object({ booking_id: z.string() }),
    risk: "read",
    run: ({ booking_id }) => {
      if (booking_id !== "booking-2") {
        throw new ToolError("booking_not_found", `No booking "${booking_id}". The one that matches is booking-2.`, { retryWith: { booking_id: "booking-2" } });
      }
      opened.push(booking_id);
      return { id: booking_id, title: "Porto, 2 nights" };
    },
  });
}

describe("a call written again after its tool named the fix", () => {
  it("takes the fix only for the very call that failed with it, and only for arguments the call has", () => {
    const fix = { booking_id: "booking-2" };
    expect(withToolFix(call({ booking_id: "porto" }), [failed({ booking_id: "porto" }, fix)]).arguments).toEqual({ booking_id: "booking-2" });
    // Another call, another tool, no fix, a fix for an argument the call does not have: unchanged.
    const other = call({ booking_id: "lisbon" });
    expect(withToolFix(other, [failed({ booking_id: "porto" }, fix)])).toBe(other);
    const renamed = call({ booking_id: "porto" }, "cancel_booking");
    expect(withToolFix(renamed, [failed({ booking_id: "porto" }, fix)])).toBe(renamed);
    const plain = call({ booking_id: "porto" });
    expect(withToolFix(plain, [failed({ booking_id: "porto" })])).toBe(plain);
    expect(withToolFix(plain, [failed({ booking_id: "porto" }, { trip_id: "trip-1" })])).toBe(plain);
    // Only the latest outcome of that call counts: once it ran, nothing is fixed.
    const ran: CallRecord = { ...failed({ booking_id: "porto" }), status: "ok", error: undefined };
    expect(withToolFix(plain, [failed({ booking_id: "porto" }, fix), ran])).toBe(plain);
  });

  it("runs the repeated call with the fix the tool's error named", async () => {
    const profile = freshNotesProfile();
    try {
      const opened: string[] = [];
      const openBooking = bookingTool(opened);
      const again = { toolCalls: [{ name: "open_booking", arguments: { booking_id: "porto" } }] };
      const model = new ScriptedModel([again, again, "Your Porto booking: 2 nights."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([openBooking]) }).run("show my porto booking").outcome;
      expect(outcome.calls.map((record) => [record.call.arguments, record.status])).toEqual([
        [{ booking_id: "porto" }, "error"],
        [{ booking_id: "booking-2" }, "ok"],
      ]);
      expect(outcome.calls[0]?.error?.retryWith).toEqual({ booking_id: "booking-2" });
      expect(opened).toEqual(["booking-2"]);
    } finally {
      profile.close();
    }
  });

  it("reads a value written with a space before its word as the word, so the repeated call is the same call and takes the fix", async () => {
    expect(withSpacesTrimmed(call({ booking_id: " porto ", notes: ["  a", "b"], blank: "  " })).arguments).toEqual({ booking_id: "porto", notes: ["a", "b"], blank: "  " });
    const tidy = call({ booking_id: "porto" });
    expect(withSpacesTrimmed(tidy)).toBe(tidy);
    const profile = freshNotesProfile();
    try {
      const openBooking = bookingTool([]);
      const again = { toolCalls: [{ name: "open_booking", arguments: { booking_id: " porto" } }] };
      const model = new ScriptedModel([again, again, "Your Porto booking."]);
      const outcome = await new Agent({ model, profile, toolbox: new ToolBox([openBooking]) }).run("show my porto booking").outcome;
      expect(outcome.calls.map((record) => [record.call.arguments, record.status])).toEqual([
        [{ booking_id: "porto" }, "error"],
        [{ booking_id: "booking-2" }, "ok"],
      ]);
      expect(outcome.calls[0]?.error?.message).toBe('No booking "porto". The one that matches is booking-2.');
    } finally {
      profile.close();
    }
  });
});
