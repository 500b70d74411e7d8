import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { parseWhen } from "../time.js";
import { haversineKm, stableFraction } from "./common.js";
import { capped, findByName, formatMoney, itemsMatching, looseNumber, money, referenceFix, referenceHint } from "../shared.js";
import { addDays, clockOf, daysBetween, localDate } from "../time.js";
import { charge, credit, resolvePaymentMethod } from "./finance.js";

export const TRAVEL_APP = "travel";

export interface Airport {
  code: string;
  city: string;
  name: string;
  lat: number;
  lon: number;
}

export const AIRPORTS: readonly Airport[] = [
  { code: "LIS", city: "Lisbon", name: "Humberto Delgado", lat: 38.7742, lon: -9.1342 },
  { code: "OPO", city: "Porto", name: "Francisco Sá Carneiro", lat: 41.2421, lon: -8.6786 },
  { code: "FAO", city: "Faro", name: "Faro", lat: 37.0144, lon: -7.9659 },
  { code: "MAD", city: "Madrid", name: "Barajas", lat: 40.4983, lon: -3.5676 },
  { code: "BCN", city: "Barcelona", name: "El Prat", lat: 41.2974, lon: 2.0833 },
  { code: "CDG", city: "Paris", name: "Charles de Gaulle", lat: 49.0097, lon: 2.5479 },
  { code: "LHR", city: "London", name: "Heathrow", lat: 51.47, lon: -0.4543 },
  { code: "AMS", city: "Amsterdam", name: "Schiphol", lat: 52.3105, lon: 4.7683 },
  { code: "BER", city: "Berlin", name: "Brandenburg", lat: 52.3667, lon: 13.5033 },
  { code: "FCO", city: "Rome", name: "Fiumicino", lat: 41.8003, lon: 12.2389 },
  { code: "JFK", city: "New York", name: "John F. Kennedy", lat: 40.6413, lon: -73.7781 },
];

interface Hotel {
  id: string;
  name: string;
  city: string;
  stars: number;
  nightly: number;
  area: string;
}

const HOTELS: readonly Hotel[] = [
  ["lisbon-alfama-house", "Alfama House", "Lisbon", 3, 89, "Alfama"],
  ["lisbon-avenida-palace", "Avenida Palace", "Lisbon", 5, 240, "Restauradores"],
  ["porto-ribeira-inn", "Ribeira Inn", "Porto", 3, 79, "Ribeira"],
  ["porto-douro-grand", "Douro Grand Hotel", "Porto", 5, 210, "Baixa"],
  ["porto-bolhao-rooms", "Bolhão Rooms", "Porto", 2, 55, "Bolhão"],
  ["faro-marina-hotel", "Marina Hotel Faro", "Faro", 4, 110, "Marina"],
  ["madrid-sol-suites", "Sol Suites", "Madrid", 4, 145, "Centro"],
  ["madrid-lavapies-hostel", "Lavapiés Hostel", "Madrid", 2, 48, "Lavapiés"],
  ["barcelona-gothic-hotel", "Gothic Quarter Hotel", "Barcelona", 4, 165, "Barri Gòtic"],
  ["barcelona-gracia-b-and-b", "Gràcia B&B", "Barcelona", 3, 92, "Gràcia"],
  ["paris-hotel-marais", "Hôtel du Marais", "Paris", 4, 198, "Le Marais"],
  ["paris-montmartre-stay", "Montmartre Stay", "Paris", 3, 124, "Montmartre"],
  ["london-covent-garden-hotel", "Covent Garden Hotel", "London", 4, 260, "Covent Garden"],
  ["london-kings-cross-rooms", "King's Cross Rooms", "London", 3, 135, "King's Cross"],
  ["amsterdam-canal-house", "Canal House", "Amsterdam", 4, 185, "Jordaan"],
  ["berlin-mitte-hotel", "Mitte Hotel", "Berlin", 3, 99, "Mitte"],
  ["rome-trastevere-inn", "Trastevere Inn", "Rome", 3, 115, "Trastevere"],
  ["new-york-midtown-hotel", "Midtown Hotel", "New York", 4, 289, "Midtown"],
].map(([id, name, city, stars, nightly, area]) => ({ id, name, city, stars, nightly, area }) as Hotel);

const AIRLINES = ["TAP Air Portugal", "Iberia", "easyJet", "Ryanair", "Air France", "British Airways", "KLM", "Lufthansa"];

export interface Flight {
  id: string;
  from: string;
  to: string;
  date: string;
  departs: string;
  arrives: string;
  durationMinutes: number;
  airline: string;
  price: number;
  stops: number;
}

export interface Booking {
  id: string;
  kind: "flight" | "hotel";
  /** Flight id or hotel id. */
  itemId: string;
  title: string;
  /** Local YYYY-MM-DD of departure or check-in. */
  startDate: string;
  /** HH:MM of departure (flights). */
  startTime?: string;
  nights?: number;
  price: number;
  status: "confirmed" | "cancelled";
  paymentAccountId: string;
  bookedAt: string;
  refund?: number;
}

const bookings = (tx: StoreTransaction) => tx.collection<Booking>(TRAVEL_APP, "bookings");
const settings = (tx: StoreTransaction) => tx.collection<{ limit: number }>(TRAVEL_APP, "budget");

function resolveAirport(query: string, field: string): Airport {
  const wanted = query.trim().toLowerCase();
  const byCode = AIRPORTS.find((airport) => airport.code.toLowerCase() === wanted);
  if (byCode !== undefined) return byCode;
  const byCity = AIRPORTS.find((airport) => airport.city.toLowerCase() === wanted);
  if (byCity !== undefined) return byCity;
  try {
    return findByName(AIRPORTS, query, { what: "airport", id: (airport) => airport.code, name: (airport) => `${airport.city} ${airport.name}` });
  } catch {
    throw new ToolError(
      "unknown_airport",
      `${field}="${query}" is not a city or airport we fly to. Use one of: ${AIRPORTS.map((airport) => `${airport.city} (${airport.code})`).join(", ")}.`,
    );
  }
}

function minutesToTime(total: number): string {
  const wrapped = ((total % 1440) + 1440) % 1440;
  return `${String(Math.floor(wrapped / 60)).padStart(2, "0")}:${String(wrapped % 60).padStart(2, "0")}`;
}

/** The day's flights on a route: generated from the route and date, so they repeat exactly. */
export function flightsOn(from: Airport, to: Airport, date: string): Flight[] {
  const km = haversineKm(from, to);
  const duration = Math.round((km / 780) * 60 + 35);
  const slots = [7 * 60 + 5, 12 * 60 + 40, 18 * 60 + 20];
  return slots.map((slot, index) => {
    const key = `${from.code}-${to.code}-${date}-${index + 1}`;
    const fraction = stableFraction(key);
    const departsMinutes = slot + Math.round(fraction * 50) - 25;
    const airline = AIRLINES[Math.floor(stableFraction(`${key}-airline`) * AIRLINES.length)] ?? "TAP Air Portugal";
    const price = money(Math.round((39 + km * 0.085) * (0.75 + fraction * 0.9)) - 0.01);
    return {
      id: `${from.code}-${to.code}-${date.replace(/-/g, "")}-${index + 1}`,
      from: from.code,
      to: to.code,
      date,
      departs: minutesToTime(departsMinutes),
      arrives: minutesToTime(departsMinutes + duration),
      durationMinutes: duration,
      airline,
      price,
      stops: 0,
    };
  });
}

function flightById(id: string): Flight {
  const match = /^([A-Z]{3})-([A-Z]{3})-(\d{4})(\d{2})(\d{2})-([1-3])$/.exec(id.trim().toUpperCase());
  if (!match) throw new ToolError("invalid_flight_id", `flight_id "${id}" is not a flight id. Use an id from search_flights, such as "LIS-OPO-20261204-1".`);
  const [, fromCode, toCode, year, month, day, index] = match as unknown as [string, string, string, string, string, string, string];
  const from = resolveAirport(fromCode, "flight_id");
  const to = resolveAirport(toCode, "flight_id");
  const flight = flightsOn(from, to, `${year}-${month}-${day}`)[Number(index) - 1];
  if (flight === undefined || from.code === to.code) throw new ToolError("invalid_flight_id", `No flight "${id}". Search again with search_flights.`);
  return flight;
}

function futureDate(text: string, context: { now(): Date; timeZone: string }, field: string): string {
  const when = parseWhen(text, clockOf(context), field);
  const today = localDate(context.now(), context.timeZone);
  if (when.date < today) throw new ToolError("date_in_past", `${field}="${text}" is ${when.date}, before today (${today}). Choose today or a later day.`);
  if (daysBetween(today, when.date) > 330) throw new ToolError("date_too_far", `${field} ${when.date} is too far ahead: bookings open 330 days in advance.`);
  return when.date;
}

function budgetLeft(tx: StoreTransaction): { limit: number | undefined; committed: number; left: number | undefined } {
  const limit = settings(tx).get("budget")?.limit;
  const committed = money(
    bookings(tx)
      .all()
      .reduce((sum, booking) => sum + (booking.status === "confirmed" ? booking.price : booking.price - (booking.refund ?? 0)), 0),
  );
  return { limit, committed, left: limit === undefined ? undefined : money(limit - committed) };
}

function checkBudget(tx: StoreTransaction, price: number, maxPrice: number | undefined, what: string): void {
  if (maxPrice !== undefined && price > maxPrice) {
    throw new ToolError("over_budget", `${what} costs ${formatMoney(price)}, more than your limit of ${formatMoney(maxPrice)}. Choose a cheaper option from the search results.`);
  }
  const budget = budgetLeft(tx);
  if (budget.left !== undefined && price > budget.left) {
    throw new ToolError(
      "over_budget",
      `${what} costs ${formatMoney(price)}, but only ${formatMoney(Math.max(0, budget.left))} of the travel budget (${formatMoney(budget.limit ?? 0)}) is left. ` +
        `Choose a cheaper option, cancel another booking, or raise the budget with set_travel_budget.`,
      { left: budget.left },
    );
  }
}

/** Share of the price given back when cancelling, by days before the start. */
function refundShare(booking: Booking, daysBefore: number): number {
  if (booking.kind === "flight") return daysBefore >= 14 ? 1 : daysBefore >= 2 ? 0.5 : 0;
  if (daysBefore >= 2) return 1;
  return Math.max(0, 1 - 1 / (booking.nights ?? 1));
}

const flightResult = (flight: Flight) => ({
  flight_id: flight.id,
  from: flight.from,
  to: flight.to,
  date: flight.date,
  departs: flight.departs,
  arrives: flight.arrives,
  duration_minutes: flight.durationMinutes,
  airline: flight.airline,
  price: flight.price,
});

const bookingResult = (booking: Booking) => ({
  booking_id: booking.id,
  kind: booking.kind,
  what: booking.title,
  date: booking.startDate,
  time: booking.startTime,
  nights: booking.nights,
  price: booking.price,
  status: booking.status,
  refund: booking.refund,
});

const searchFlights = defineTool({
  name: "search_flights",
  description: "Search flights between two cities on a date, cheapest first, optionally under a maximum price.",
  input: z.object({
    from: z.string().optional().describe('Departure city or airport code, e.g. "Lisbon" (default) or "LIS"'),
    to: z.string().describe('Destination city or airport code, e.g. "Porto"'),
    date: z.string().describe('Day of travel, e.g. "Friday" or "2026-12-18"'),
    max_price: looseNumber(z.number().positive()).optional().describe("Highest price in EUR, e.g. 150"),
  }),
  risk: "read",
  run: ({ from, to, date, max_price }, context) => {
    const origin = resolveAirport(from ?? "Lisbon", "from");
    const destination = resolveAirport(to, "to");
    if (origin.code === destination.code) throw new ToolError("same_place", `from and to are both ${origin.city}. Choose two different cities.`);
    const day = futureDate(date, context, "date");
    const all = flightsOn(origin, destination, day).sort((a, b) => a.price - b.price);
    const within = all.filter((flight) => max_price === undefined || flight.price <= max_price);
    const budget = budgetLeft(context.store);
    return {
      date: day,
      from: `${origin.city} (${origin.code})`,
      to: `${destination.city} (${destination.code})`,
      flights: within.map(flightResult),
      cheapest_over_limit: within.length === 0 ? all[0]?.price : undefined,
      travel_budget_left: budget.left,
    };
  },
});

const bookFlight = defineTool({
  name: "book_flight",
  description: "Book and pay for a flight found with search_flights. Refused when over the travel budget or your max_price.",
  input: z.object({
    flight_id: z.string().describe('Flight id from search_flights, e.g. "LIS-OPO-20261204-1"'),
    payment_method: z.string().optional().describe('"visa" (default) or "checking"'),
    max_price: looseNumber(z.number().positive()).optional().describe("Do not pay more than this, in EUR"),
  }),
  risk: "spend",
  run: ({ flight_id, payment_method, max_price }, context) => {
    const flight = flightById(flight_id);
    const today = localDate(context.now(), context.timeZone);
    if (flight.date < today) throw new ToolError("date_in_past", `Flight ${flight.id} left on ${flight.date}. Search for a later date.`);
    const existing = bookings(context.store).find((booking) => booking.itemId === flight.id && booking.status === "confirmed")[0];
    if (existing !== undefined) throw new ToolError("already_booked", `Flight ${flight.id} is already booked (${existing.id}). Nothing to do.`);
    const title = `Flight ${flight.from} → ${flight.to}, ${flight.airline}`;
    checkBudget(context.store, flight.price, max_price, `Flight ${flight.id}`);
    const account = resolvePaymentMethod(context.store, payment_method);
    const at = context.now();
    const id = bookings(context.store).nextId("booking");
    const entry = charge(context.store, { account, amount: flight.price, description: `${title} (${flight.date})`, category: "travel", at, counterparty: flight.airline });
    const booking: Booking = {
      id,
      kind: "flight",
      itemId: flight.id,
      title,
      startDate: flight.date,
      startTime: flight.departs,
      price: flight.price,
      status: "confirmed",
      paymentAccountId: account.id,
      bookedAt: at.toISOString(),
    };
    bookings(context.store).put(id, booking);
    return { ...bookingResult(booking), paid_with: account.name, transaction: entry.id, travel_budget_left: budgetLeft(context.store).left };
  },
});

const searchHotels = defineTool({
  name: "search_hotels",
  description: "Search hotels in a city for a stay, cheapest first, optionally under a nightly price.",
  input: z.object({
    city: z.string().describe('City, e.g. "Porto"'),
    check_in: z.string().describe('Arrival day, e.g. "Friday" or "2026-12-18"'),
    nights: looseNumber(z.number().int().min(1).max(30)).optional().describe("Nights, e.g. 2 (default 1)"),
    max_price_per_night: looseNumber(z.number().positive()).optional().describe("Highest nightly price in EUR, e.g. 120"),
  }),
  risk: "read",
  run: ({ city, check_in, nights, max_price_per_night }, context) => {
    const wanted = city.trim().toLowerCase();
    const inCity = HOTELS.filter((hotel) => hotel.city.toLowerCase() === wanted);
    if (inCity.length === 0) {
      throw new ToolError("unknown_city", `No hotels in "${city}". Cities with hotels: ${[...new Set(HOTELS.map((hotel) => hotel.city))].join(", ")}.`);
    }
    const day = futureDate(check_in, context, "check_in");
    const stay = nights ?? 1;
    const found = inCity
      .filter((hotel) => max_price_per_night === undefined || hotel.nightly <= max_price_per_night)
      .sort((a, b) => a.nightly - b.nightly);
    return {
      city: inCity[0]!.city,
      check_in: day,
      check_out: addDays(day, stay),
      nights: stay,
      hotels: found.map((hotel) => ({ hotel_id: hotel.id, name: hotel.name, stars: hotel.stars, area: hotel.area, per_night: hotel.nightly, total: money(hotel.nightly * stay) })),
      travel_budget_left: budgetLeft(context.store).left,
    };
  },
});

const bookHotel = defineTool({
  name: "book_hotel",
  description: "Book and pay for a hotel stay. Refused when over the travel budget or your max_price.",
  input: z.object({
    hotel: z.string().describe('Hotel id or name from search_hotels, e.g. "Ribeira Inn"'),
    check_in: z.string().describe('Arrival day, e.g. "Friday"'),
    nights: looseNumber(z.number().int().min(1).max(30)).describe("Nights, e.g. 2"),
    payment_method: z.string().optional().describe('"visa" (default) or "checking"'),
    max_price: looseNumber(z.number().positive()).optional().describe("Do not pay more than this in total, in EUR"),
  }),
  risk: "spend",
  run: ({ hotel: query, check_in, nights, payment_method, max_price }, context) => {
    const hotel = findByName(HOTELS, query, { what: "hotel", id: (item) => item.id, name: (item) => item.name, listTool: "search_hotels" });
    const day = futureDate(check_in, context, "check_in");
    const price = money(hotel.nightly * nights);
    const title = `${hotel.name}, ${hotel.city}, ${nights} night${nights > 1 ? "s" : ""}`;
    checkBudget(context.store, price, max_price, `${hotel.name} for ${nights} night${nights > 1 ? "s" : ""}`);
    const account = resolvePaymentMethod(context.store, payment_method);
    const at = context.now();
    const id = bookings(context.store).nextId("booking");
    const entry = charge(context.store, { account, amount: price, description: `${title} from ${day}`, category: "travel", at, counterparty: hotel.name });
    const booking: Booking = {
      id,
      kind: "hotel",
      itemId: hotel.id,
      title,
      startDate: day,
      nights,
      price,
      status: "confirmed",
      paymentAccountId: account.id,
      bookedAt: at.toISOString(),
    };
    bookings(context.store).put(id, booking);
    return { ...bookingResult(booking), check_out: addDays(day, nights), paid_with: account.name, transaction: entry.id, travel_budget_left: budgetLeft(context.store).left };
  },
});

const listBookings = defineTool({
  name: "list_bookings",
  description: "List your flight and hotel bookings, soonest first.",
  input: z.object({ include_cancelled: z.boolean().optional().describe("true to include cancelled bookings") }),
  risk: "read",
  run: ({ include_cancelled }, context) => {
    const all = bookings(context.store)
      .all()
      .filter((booking) => include_cancelled === true || booking.status === "confirmed")
      .sort((a, b) => a.startDate.localeCompare(b.startDate));
    const list = capped(all, 10);
    return { bookings: list.items.map(bookingResult), more: list.more, travel_budget: budgetLeft(context.store) };
  },
});

const cancelBooking = defineTool({
  name: "cancel_booking",
  description:
    "Cancel a flight or hotel booking. Flights: full refund 14+ days ahead, half 2-13 days ahead, none later. Hotels: free until 2 days before check-in, then the first night is kept.",
  input: z.object({ booking_id: z.string().describe('Booking id from list_bookings, e.g. "booking-2"') }),
  risk: "destructive",
  run: ({ booking_id }, context) => {
    const booking = bookings(context.store).get(booking_id.trim().toLowerCase());
    if (booking === undefined) {
      const matching = itemsMatching(bookings(context.store).all(), booking_id, (candidate) => `${candidate.kind} ${candidate.title}`).map((candidate) => candidate.id);
      throw new ToolError(
        "booking_not_found",
        `No booking "${booking_id}".${matching.length > 0 ? referenceHint(matching, "booking_id") : " See your bookings with list_bookings."}`,
        referenceFix(matching, "booking_id"),
      );
    }
    if (booking.status === "cancelled") throw new ToolError("already_cancelled", `Booking ${booking.id} is already cancelled. Nothing to do.`);
    const today = localDate(context.now(), context.timeZone);
    const daysBefore = daysBetween(today, booking.startDate);
    if (daysBefore < 0 || (daysBefore === 0 && booking.kind === "hotel")) {
      throw new ToolError("already_started", `${booking.title} started on ${booking.startDate}; it can no longer be cancelled.`);
    }
    const refund = money(booking.price * refundShare(booking, daysBefore));
    const at = context.now();
    if (refund > 0) credit(context.store, { accountId: booking.paymentAccountId, amount: refund, description: `Refund: ${booking.title}`, category: "travel", at });
    const next: Booking = { ...booking, status: "cancelled", refund };
    bookings(context.store).put(booking.id, next);
    return { ...bookingResult(next), days_before: daysBefore, refunded_to: refund > 0 ? booking.paymentAccountId : undefined, kept_by_provider: money(booking.price - refund) };
  },
});

const setTravelBudget = defineTool({
  name: "set_travel_budget",
  description: "Set the total budget for travel bookings (flights and hotels), in EUR.",
  input: z.object({ amount: looseNumber(z.number().positive().max(1_000_000)).describe("Budget in EUR, e.g. 1500") }),
  risk: "write",
  run: ({ amount }, context) => {
    const previous = settings(context.store).get("budget")?.limit;
    settings(context.store).put("budget", { limit: money(amount) });
    return { travel_budget: money(amount), previous, ...budgetLeft(context.store) };
  },
});

export const travelApp: App = {
  name: TRAVEL_APP,
  group: "errands",
  title: "Travel",
  description: "Flights and hotels: search, book within a budget, cancel with refund rules.",
  tools: [searchFlights, bookFlight, searchHotels, bookHotel, listBookings, cancelBooking, setTravelBudget],
  seed(tx, environment) {
    settings(tx).put("budget", { limit: 1500 });
    const today = localDate(environment.now(), environment.timeZone);
    const day = addDays(today, 24);
    const flight = flightsOn(resolveAirport("LIS", "from"), resolveAirport("OPO", "to"), day)[0]!;
    const id = bookings(tx).nextId("booking");
    bookings(tx).put(id, {
      id,
      kind: "flight",
      itemId: flight.id,
      title: `Flight LIS → OPO, ${flight.airline}`,
      startDate: day,
      startTime: flight.departs,
      price: flight.price,
      status: "confirmed",
      paymentAccountId: "visa",
      bookedAt: new Date(environment.now().getTime() - 6 * 86_400_000).toISOString(),
    });
    const hotelId = bookings(tx).nextId("booking");
    const hotel = HOTELS.find((item) => item.id === "porto-ribeira-inn")!;
    bookings(tx).put(hotelId, {
      id: hotelId,
      kind: "hotel",
      itemId: hotel.id,
      title: `${hotel.name}, Porto, 2 nights`,
      startDate: day,
      nights: 2,
      price: money(hotel.nightly * 2),
      status: "confirmed",
      paymentAccountId: "visa",
      bookedAt: new Date(environment.now().getTime() - 6 * 86_400_000).toISOString(),
    });
  },
  view(tx) {
    const all = bookings(tx)
      .all()
      .sort((a, b) => a.startDate.localeCompare(b.startDate));
    const budget = budgetLeft(tx);
    const text = [
      `Travel budget: ${budget.limit === undefined ? "none set" : `${formatMoney(budget.limit)}, ${formatMoney(budget.left ?? 0)} left`}`,
      "Bookings:",
      ...(all.length === 0
        ? ["  none"]
        : all.map(
            (booking) =>
              `  ${booking.id.padEnd(10)} ${booking.startDate}${booking.startTime ? ` ${booking.startTime}` : ""}  ${booking.title}  ${formatMoney(booking.price)}  ${booking.status}` +
              (booking.refund !== undefined ? ` (refund ${formatMoney(booking.refund)})` : ""),
          )),
    ].join("\n");
    return { text, data: { budget, bookings: all.map(bookingResult) } };
  },
};

/** For tests and evaluation: the bundled airports' codes and hotels' ids. */
export const TRAVEL_DATA = { airports: AIRPORTS.map((airport) => airport.code), hotels: HOTELS.map((hotel) => hotel.id) };
