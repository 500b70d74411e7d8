import { describe, expect, it } from "vitest";
import { clockTimesInFigures, describedDateFormat, formatDate, groundCallDates, namedTimes, spokenTimeOfDay } from "../../src/agent/date-grounding.js";

// Tuesday 2026-12-01 09:00 in Lisbon (UTC+0 in December).
const clock = { now: new Date("2026-12-01T09:00:00Z"), timeZone: "Europe/Lisbon" };
const call = (name: string, args: Record<string, unknown>) => ({ id: "call-1", name, arguments: args });

describe("grounded dates and times", () => {
  it("resolves the request's own words against the profile clock and zone", () => {
    expect(namedTimes("Set an alarm for 7 am tomorrow", clock)).toEqual([{ text: "7 am tomorrow", date: "2026-12-02", time: "07:00" }]);
    expect(namedTimes("Remind me to call the dentist by Friday", clock)).toEqual([{ text: "Friday", date: "2026-12-04" }]);
    expect(namedTimes("Set an alarm in 2 hours", clock)[0]).toMatchObject({ date: "2026-12-01", time: "11:00" });
    // "every 8 hours" is how often, not a time 8 hours from now; "in 8 hours" is one.
    expect(namedTimes("first pill at 7:30 pm, then one every 8 hours", clock)).toEqual([{ text: "at 7:30 pm", time: "19:30" }]);
    expect(namedTimes("water the plants each 2 days", clock)).toEqual([]);
    expect(namedTimes("remind me in 8 hours", clock)[0]).toMatchObject({ time: "17:00" });
    // Late evening in Tokyo is already the next day there.
    expect(namedTimes("tomorrow", { now: new Date("2026-12-01T20:00:00Z"), timeZone: "Asia/Tokyo" })[0]?.date).toBe("2026-12-03");
  });

  it("corrects a calendar lookup that searched a day from the model's training data", () => {
    const grounded = groundCallDates(call("list_events", { date: "2022-01-23" }), "What's on my calendar tomorrow?", clock);
    expect(grounded.kind).toBe("corrected");
    expect(grounded.call.arguments).toEqual({ date: "2026-12-02" });
  });

  it("corrects a task's due date and a weather day to the request's Friday", () => {
    expect(groundCallDates(call("add_task", { title: "Call the dentist", due: "2022-01-21" }), "Remind me to call the dentist by Friday", clock).call.arguments).toEqual({
      title: "Call the dentist",
      due: "2026-12-04",
    });
    expect(groundCallDates(call("get_weather", { place: "Lisbon", date: "tomorrow" }), "What's the weather in Lisbon on Friday?", clock).call.arguments).toEqual({
      place: "Lisbon",
      date: "2026-12-04",
    });
  });

  it("corrects an alarm's time and leaves agreeing or unrelated arguments alone", () => {
    expect(groundCallDates(call("set_alarm", { time: "08:00" }), "Set an alarm in 2 hours", clock).call.arguments).toEqual({ time: "11:00" });
    expect(groundCallDates(call("set_alarm", { time: "7am" }), "Set an alarm for 7 am tomorrow", clock).kind).toBe("unchanged");
    expect(groundCallDates(call("set_alarm", { time: "2022-12-01T09:00:00Z" }), "Set an alarm in 2 hours", clock).call.arguments).toEqual({ time: "11:00" });
    expect(groundCallDates(call("list_events", { from: "2022-01-20", to: "2022-01-26" }), "What's on my calendar today?", clock).call.arguments).toEqual({
      from: "2026-12-01",
      to: "2022-01-26",
    });
    expect(groundCallDates(call("create_event", { title: "Lunch", date: "Friday", time: "1 pm", end: "14:30" }), "Schedule lunch with Priya on Friday at 1 pm", clock).kind).toBe(
      "unchanged",
    );
    // Two days in the request: which argument means which is a guess, so nothing is touched.
    expect(groundCallDates(call("create_event", { date: "2022-01-01" }), "Move Monday's call to Friday", clock).kind).toBe("unchanged");
    expect(groundCallDates(call("add_task", { title: "milk" }), "Add buy milk to my tasks", clock).kind).toBe("unchanged");
  });

  describe("a time of day the request's words contradict", () => {
    // Friday 2026-12-04 15:07 UTC: the afternoon a small model wrote midnight for "Set an alarm for 7".
    const afternoon = { now: new Date("2026-12-04T15:07:00Z"), timeZone: "UTC" };
    const alarm = (time: string, request: string, at = afternoon) => groundCallDates(call("set_alarm", { time }), request, at);

    it("sends an hour the request does not name back to the model, with what the request said", () => {
      const midnight = alarm("2026-12-05 00:00:00", "Set an alarm for 7");
      expect(midnight.kind).toBe("contradiction");
      if (midnight.kind !== "contradiction") return;
      expect(midnight.call.arguments).toEqual({ time: "2026-12-05 00:00:00" });
      expect(midnight.error.code).toBe("date_contradicts_request");
      expect(midnight.error.message).toBe('The request says "for 7", not 00:00. Call set_alarm with time="07:00" or time="19:00".');
      // 6:30 may be morning or evening; 16:30 is neither.
      const wake = alarm("16:30", "Wake me at 6:30");
      expect(wake.kind).toBe("contradiction");
      if (wake.kind === "contradiction") expect(wake.error.message).toContain('time="06:30" or time="18:30"');
      expect(alarm("00:00", "Wake me at half past six").kind).toBe("contradiction");
      expect(alarm("12:00", "Set an alarm for seven").kind).toBe("contradiction");
      expect(alarm("00:00", "Set an alarm at 7 o'clock").kind).toBe("contradiction");
      expect(alarm("2026-12-05 00:00", "Set an alarm for 7 tomorrow").kind).toBe("contradiction");
      expect(alarm("09:00", "Set an alarm for 7, please").kind).toBe("contradiction");
      // A day and a time tied together: the time of a date-time argument is held to it too.
      expect(groundCallDates(call("create_event", { title: "Lunch", start: "2026-12-05 15:00" }), "Lunch with Priya tomorrow at 1", afternoon).kind).toBe("contradiction");
    });

    it("leaves either reading of an hour that leaves morning or evening open", () => {
      for (const time of ["07:00", "19:00", "7 pm", "2026-12-05 07:00:00"]) expect(alarm(time, "Set an alarm for 7").kind, time).toBe("unchanged");
      expect(alarm("18:30", "Wake me at 6:30").kind).toBe("unchanged");
      expect(alarm("06:30", "Wake me at half past six").kind).toBe("unchanged");
      expect(alarm("19:45", "Wake me at quarter to eight").kind).toBe("unchanged");
      expect(alarm("00:00", "Set an alarm for 12").kind).toBe("unchanged");
      expect(groundCallDates(call("create_event", { title: "Lunch", start: "2026-12-05 13:00" }), "Lunch with Priya tomorrow at 1", afternoon).kind).toBe("unchanged");
      // The right hour with other minutes takes the request's minutes, as the reading it is closer to.
      expect(alarm("19:30", "Set an alarm for 7").call.arguments).toEqual({ time: "19:00" });
    });

    it("corrects a time the request settles, as before", () => {
      expect(alarm("00:00", "Set an alarm for 7 am").call.arguments).toEqual({ time: "07:00" });
      expect(alarm("07:00", "Set an alarm for 7pm").call.arguments).toEqual({ time: "19:00" });
      expect(alarm("00:00", "Set an alarm at 19:00").call.arguments).toEqual({ time: "19:00" });
      expect(alarm("07:00", "Wake me tomorrow morning at 7").kind).toBe("unchanged");
      // An interval beside the time ("every 8 hours") leaves it the request's only time.
      expect(groundCallDates(call("dose_times", { first_dose_time: "7:30", interval_hours: 8 }), "first dose at 7:30 pm tonight, then every 8 hours", clock).call.arguments).toEqual({
        first_dose_time: "19:30",
        interval_hours: 8,
      });
    });

    it("leaves times the request does not contradict alone", () => {
      // Counted from the clock: no clock hour is named, and clock + offset agrees.
      expect(alarm("15:27", "Set an alarm in 20 minutes").kind).toBe("unchanged");
      expect(alarm("17:07", "Remind me in 2 hours").kind).toBe("unchanged");
      expect(alarm("2026-12-05 00:45", "Set an alarm in 2 hours", { now: new Date("2026-12-04T22:45:00Z"), timeZone: "UTC" }).kind).toBe("unchanged");
      // No hour in the request.
      expect(alarm("00:00", "Set an alarm").kind).toBe("unchanged");
      expect(alarm("08:00", "Set an alarm for tomorrow").kind).toBe("unchanged");
      // No time part in the value.
      expect(groundCallDates(call("set_alarm", { date: "2026-12-05" }), "Set an alarm for 7 tomorrow", afternoon).kind).toBe("unchanged");
      expect(groundCallDates(call("add_task", { title: "Call mum", due: "2026-12-05" }), "Remind me to call mum for 7 minutes tomorrow", afternoon).kind).toBe("unchanged");
      // Figures that count things are not hours: "for 7 days", "for 4 people", a party size the call carries.
      expect(alarm("08:00", "Set an alarm every day for 7 days").kind).toBe("unchanged");
      expect(alarm("19:00", "Book a table for 4 people").kind).toBe("unchanged");
      expect(groundCallDates(call("book_table", { party_size: 4, time: "19:00" }), "Book a table for 4", afternoon).kind).toBe("unchanged");
      // Two times in the request: which one the argument means is a guess.
      expect(alarm("09:00", "Move my 7 am alarm to 8 am").kind).toBe("unchanged");
    });

    it("reads clock times said in words as chrono reads figures", () => {
      expect(clockTimesInFigures("wake me at half past six")).toBe("wake me at 6:30");
      expect(clockTimesInFigures("quarter to one")).toBe("12:45");
      expect(clockTimesInFigures("an alarm for seven thirty")).toBe("an alarm for 7:30");
      expect(clockTimesInFigures("seven o'clock")).toBe("7 o'clock");
      expect(clockTimesInFigures("seven days and three apples")).toBe("seven days and three apples");
      expect(spokenTimeOfDay("Set an alarm for 7", afternoon)).toEqual({ text: "for 7", time: "07:00", otherTime: "19:00", figure: 7 });
      // chrono's own reading counts when it names a time.
      expect(spokenTimeOfDay("Set an alarm at 7", afternoon)).toBeUndefined();
      expect(namedTimes("Set an alarm at 7", afternoon)).toEqual([{ text: "at 7", time: "07:00", otherTime: "19:00" }]);
    });

    it("reads a clock time in words together with the words that settle it, in the request and in a value", () => {
      // Not "this evening" alone (20:00): the time the words give, in the evening.
      expect(namedTimes("Which trains leave after quarter past seven this evening?", afternoon)).toMatchObject([{ time: "19:15" }]);
      const departures = call("departures", { station: "Utrecht", after_time: "quarter past seven" });
      expect(groundCallDates(departures, "Which trains leave Utrecht after quarter past seven this evening?", afternoon).call.arguments).toEqual({
        station: "Utrecht",
        after_time: "19:15",
      });
      expect(groundCallDates(call("set_alarm", { time: "half past six" }), "Wake me at half past six tomorrow morning", afternoon).call.arguments).toEqual({ time: "06:30" });
    });
  });

  it("sends a date it cannot rewrite whole back to the model with the resolved value", () => {
    const grounded = groundCallDates(call("create_event", { title: "Lunch", when: "lunch on 2022-01-23 with Priya" }), "Schedule lunch with Priya on Friday at 1 pm", clock);
    expect(grounded.kind).toBe("contradiction");
    if (grounded.kind !== "contradiction") return;
    expect(grounded.error.code).toBe("date_contradicts_request");
    expect(grounded.error.message).toContain('when="2026-12-04 13:00"');
  });
  it("leaves a call alone when the request writes the date out, weekday or not", () => {
    const flight = call("get_flight_cost", { travel_from: "RMS", travel_to: "JFK", travel_date: "2026-09-10" });
    const request = "I'd like the estimated airfare from Rivermist to New York City, economy, for this Thursday 09/10, 2026.";
    expect(groundCallDates(flight, request, clock)).toEqual({ kind: "unchanged", call: flight });
    // "now" is when to act, not a day: a follow-up "What about now?" keeps the date of the earlier turn.
    const booking = call("book_flight", { travel_date: "2026-11-10" });
    expect(groundCallDates(booking, "I have updated some more functions you can choose from. What about now?", clock).kind).toBe("unchanged");
    const alarm = call("set_alarm", { date: "2027-03-05", time: "07:00" });
    expect(groundCallDates(alarm, "Set an alarm on Friday 2027-03-05 at 7", clock).kind).toBe("unchanged");
  });

  it("corrects a date against one the request writes out whole, and reads a month written with a dot", () => {
    const game = groundCallDates(call("game_result", { team: "Celtics", date: "2021-01-02" }), "Did the Celtics win on Feb 9, 2021?", clock);
    expect(game.call.arguments).toEqual({ team: "Celtics", date: "2021-02-09" });
    const price = groundCallDates(call("share_price", { date: "2022-11-01" }), "What did the share close at on Sept.14, 2022?", clock);
    expect(price.call.arguments).toEqual({ date: "2022-09-14" });
    // A year alone where the request wrote the day: the date cut short.
    expect(groundCallDates(call("history", { date: "1969" }), "What happened on July 20, 1969?", clock).call.arguments).toEqual({ date: "1969-07-20" });
    // A weekday beside the written date does not move it; two dates in the request: left alone.
    const both = call("compare", { date: "2024-05-01" });
    expect(groundCallDates(both, "Compare May 1, 2024 with June 3, 2024", clock)).toEqual({ kind: "unchanged", call: both });
    // A relative day beside the written one is another day the request names.
    const readings = call("air_readings", { day: "2024-05-04" });
    expect(groundCallDates(readings, "Readings for yesterday and today; today is May 5, 2024", clock)).toEqual({ kind: "unchanged", call: readings });
    // Another year is another date (a card's expiry beside a travel day), not a slip.
    const card = call("add_card", { expiry_date: "2027-08-01" });
    expect(groundCallDates(card, "Add my card, it expires 08/2027; I travel on December 15, 2026", clock)).toEqual({ kind: "unchanged", call: card });
  });

  it("gives the end of a range the request names to the parameters that end something", () => {
    const stay = call("book_room", { city: "Oslo", from_date: "2023-03-01", to_date: "2023-03-01" });
    expect(groundCallDates(stay, "Book a room in Oslo from March 3, 2023 to March 6, 2023", clock).call.arguments).toEqual({
      city: "Oslo",
      from_date: "2023-03-03",
      to_date: "2023-03-06",
    });
    // No range: an end is left as the model wrote it.
    const trip = call("plan_trip", { start_date: "2023-03-01", end_date: "2023-03-09" });
    expect(groundCallDates(trip, "Plan a trip starting March 3, 2023", clock).call.arguments).toEqual({ start_date: "2023-03-03", end_date: "2023-03-09" });
  });

  it("writes a date in the format the parameter's description states", () => {
    const parameters = {
      type: "object",
      properties: {
        birthday: { type: "string", description: "Date of birth, in MM-DD-YYYY format." },
        reading_day: { type: "string", description: "The day (day/month/year) of the reading." },
        note: { type: "string" },
      },
    };
    const person = groundCallDates(call("lookup_person", { birthday: "1975-04-30", note: "x" }), "Find the person born 04-30-1975", clock, parameters);
    expect(person.call.arguments).toEqual({ birthday: "04-30-1975", note: "x" });
    const reading = groundCallDates(call("meter", { reading_day: "2024-02-01" }), "The meter reading of 2024/01/02", clock, parameters);
    expect(reading.call.arguments).toEqual({ reading_day: "02/01/2024" });
    // Already in the stated format (read in that format, not as month first): left alone.
    const written = call("meter", { reading_day: "02/01/2024" });
    expect(groundCallDates(written, "The meter reading of 2024/01/02", clock, parameters)).toEqual({ kind: "unchanged", call: written });
  });

  it("reads the formats descriptions state, and nothing that is not a date format", () => {
    expect(describedDateFormat("Must be in MM-DD-YYYY format.")).toEqual({ parts: ["M", "D", "Y"], separator: "-" });
    expect(describedDateFormat("in the format of yyyy-mm-dd such as 2022-12-01")).toEqual({ parts: ["Y", "M", "D"], separator: "-" });
    expect(describedDateFormat("Start date, in the format MM-DD-YYY.")).toEqual({ parts: ["M", "D", "Y"], separator: "-" });
    expect(describedDateFormat("The month (mm-yyyy) to look at")).toEqual({ parts: ["M", "Y"], separator: "-" });
    expect(describedDateFormat("The date (month-day-year)")).toEqual({ parts: ["M", "D", "Y"], separator: "-" });
    expect(describedDateFormat("Time as HH:MM")).toBeUndefined();
    expect(describedDateFormat("Day and month, dd/mm")).toBeUndefined();
    expect(describedDateFormat("The date to look up")).toBeUndefined();
    expect(formatDate("2022-08-16", { parts: ["M", "D", "Y"], separator: "/" })).toBe("08/16/2022");
  });
});
