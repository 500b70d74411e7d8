import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, writeSettings } from "../../src/apps/device/connectivity.js";
import { errandsApps } from "../../src/apps/errands/index.js";
import { financeApp } from "../../src/apps/errands/finance.js";
import { mapsApp } from "../../src/apps/errands/maps.js";
import { shoppingApp } from "../../src/apps/errands/shopping.js";
import { travelApp } from "../../src/apps/errands/travel.js";
import type { Profile } from "../../src/apps/profile.js";
import { risks, TestProfiles, toolFailure, toolFinder, toolRunner } from "./support.js";

const profiles = new TestProfiles({ apps: errandsApps, home: tmpdir() }, "botpsy-errands-");

const tool = toolFinder(...errandsApps);

type Result = Record<string, unknown>;

const call = toolRunner(tool);
const failure = toolFailure(tool);

async function goOffline(profile: Profile): Promise<void> {
  await profile.store.action({ tool: "test_offline", args: {} }, (tx) => writeSettings(tx, { ...DEFAULT_SETTINGS, wifi: false, mobileData: false }));
}

function balance(result: Result, id: string): number {
  const accounts = result.accounts as { id: string; balance: number }[];
  return accounts.find((account) => account.id === id)!.balance;
}

afterEach(() => profiles.closeAll());

describe("errands group", () => {
  it("has globally specific, unique tool names", () => {
    const names = errandsApps.flatMap((app) => app.tools.map((candidate) => candidate.name));
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain("search");
    for (const app of errandsApps) expect(app.group).toBe("errands");
  });

  it("renders every app's view for a person and for machines", () => {
    const profile = profiles.open();
    for (const app of errandsApps) {
      const view = profile.store.read((tx) => app.view(tx, profile.environment));
      expect(view.text.length).toBeGreaterThan(20);
      expect(() => JSON.stringify(view.data)).not.toThrow();
    }
  });
});

describe("maps app", () => {
  it("declares risk classes", () => {
    expect(risks(mapsApp)).toEqual({
      search_places: "read",
      get_directions: "read",
      compare_travel_times: "read",
      save_place: "write",
      list_saved_places: "read",
    });
  });

  it("finds places and fails clearly when nothing matches", async () => {
    const profile = profiles.open();
    const result = await call(profile, "search_places", { query: "supermarket", city: "Lisbon" });
    expect((result.places as { name: string }[]).map((place) => place.name)).toContain("Pingo Doce Chiado");
    expect((await failure(profile, "search_places", { query: "volcano" })).code).toBe("no_results");
  });

  it("gives directions by mode with plausible times, from home by default", async () => {
    const profile = profiles.open();
    const driving = await call(profile, "get_directions", { to: "Belém Tower" });
    const walking = await call(profile, "get_directions", { to: "Belém Tower", mode: "Walking" });
    expect(driving).toMatchObject({ from: "Rua das Flores 12", to: "Belém Tower", mode: "driving" });
    expect(Number(driving.distance_km)).toBeGreaterThan(6);
    expect(Number(driving.distance_km)).toBeLessThan(9);
    expect(Number(walking.minutes)).toBeGreaterThan(Number(driving.minutes));
    const porto = await call(profile, "get_directions", { from: "Lisbon", to: "Porto", mode: "driving" });
    expect(Number(porto.minutes)).toBeGreaterThan(180);
    expect(Number(porto.minutes)).toBeLessThan(300);
  });

  it("refuses impossible trips and unknown places, saying what to do", async () => {
    const profile = profiles.open();
    const tooFar = await failure(profile, "get_directions", { from: "Lisbon", to: "Porto", mode: "walking" });
    expect(tooFar.code).toBe("too_far");
    expect(tooFar.message).toContain("Choose another mode");
    expect((await failure(profile, "get_directions", { to: "home" })).code).toBe("same_place");
    expect((await failure(profile, "get_directions", { to: "Narnia" })).code).toBe("not_found");
    await expect(profile.runTool(tool("get_directions"), { to: "Belém Tower", mode: "teleport" })).rejects.toThrow();
  });

  it("compares every mode and names the fastest", async () => {
    const profile = profiles.open();
    const result = await call(profile, "compare_travel_times", { from: "work", to: "Lisbon Airport" });
    expect((result.options as unknown[]).length).toBe(4);
    expect(result.fastest).toBe("driving");
    const far = await call(profile, "compare_travel_times", { from: "Lisbon", to: "Berlin" });
    expect((far.options as { mode: string; unavailable?: string }[]).find((option) => option.mode === "walking")?.unavailable).toContain("too far");
  });

  it("saves a place under a label, persists it, and undo removes it", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    expect(await call(first, "save_place", { label: "Aquarium", place: "Oceanário de Lisboa" })).toMatchObject({ saved: "aquarium" });
    first.close();
    const second = profiles.open({ databasePath: path });
    const directions = await call(second, "get_directions", { to: "aquarium", mode: "transit" });
    expect(directions.to).toBe("Oceanário de Lisboa");
    const listed = await call(second, "list_saved_places");
    expect((listed.places as { label: string }[]).map((place) => place.label)).toContain("aquarium");
    await second.store.undo();
    expect((await failure(second, "get_directions", { to: "aquarium" })).code).toBe("not_found");
    expect((await failure(second, "save_place", { label: "x", place: "Atlantis" })).code).toBe("not_found");
  });
});

describe("finance app", () => {
  it("declares risk classes", () => {
    expect(risks(financeApp)).toEqual({
      get_account_balances: "read",
      list_transactions: "read",
      transfer_money: "spend",
      list_bills: "read",
      pay_bill: "spend",
      set_budget: "write",
      get_budget_status: "read",
    });
  });

  it("lists balances and filtered transactions", async () => {
    const profile = profiles.open();
    const balances = await call(profile, "get_account_balances");
    expect(balance(balances, "checking")).toBe(2450.75);
    expect((balances.accounts as { id: string; owed?: number }[]).find((account) => account.id === "visa")?.owed).toBe(312.4);
    const groceries = await call(profile, "list_transactions", { category: "Groceries", days: 30 });
    const list = groceries.transactions as { category: string }[];
    expect(list.length).toBeGreaterThan(2);
    expect(list.every((entry) => entry.category === "groceries")).toBe(true);
    expect((await failure(profile, "list_transactions", { account: "bitcoin wallet" })).code).toBe("not_found");
  });

  it("moves money between own accounts and to a contact", async () => {
    const profile = profiles.open();
    const own = await call(profile, "transfer_money", { amount: 200, from_account: "checking", to: "savings" });
    expect(balance(own, "checking")).toBe(2250.75);
    expect(balance(own, "savings")).toBe(8400);
    const toMaria = await call(profile, "transfer_money", { amount: "25", to: "Maria", note: "pizza" });
    expect(toMaria).toMatchObject({ to: "Maria Lopez", balance_after: 2225.75 });
  });

  it("refuses transfers it cannot make, with the reason and the fix", async () => {
    const profile = profiles.open();
    const short = await failure(profile, "transfer_money", { amount: 3000, to: "Frank" });
    expect(short.code).toBe("insufficient_funds");
    expect(short.message).toContain("2450.75");
    expect((await failure(profile, "transfer_money", { amount: 6000, to: "savings", from_account: "savings" })).code).toBe("over_transfer_limit");
    expect((await failure(profile, "transfer_money", { amount: 10, to: "checking" })).code).toBe("same_account");
    expect((await failure(profile, "transfer_money", { amount: 10, to: "Santa Claus" })).code).toBe("unknown_recipient");
    await goOffline(profile);
    const offline = await failure(profile, "transfer_money", { amount: 10, to: "Frank" });
    expect(offline.code).toBe("wifi_off");
    expect(offline.message).toContain("set_wifi(on=true)");
    await expect(profile.runTool(tool("transfer_money"), { amount: -5, to: "savings" })).rejects.toThrow();
  });

  it("pays a bill once, and undo brings the money and the bill back", async () => {
    const profile = profiles.open();
    const bills = await call(profile, "list_bills");
    expect((bills.bills as { payee: string }[])[0]?.payee).toBe("Vodafone mobile");
    const paid = await call(profile, "pay_bill", { bill: "EDP" });
    expect(paid).toMatchObject({ paid: "EDP electricity", amount: 64.3, balance_after: 2386.45 });
    expect((await failure(profile, "pay_bill", { bill: "EDP electricity" })).code).toBe("not_found");
    expect((await failure(profile, "pay_bill", { bill: "rent", account: "savings" })).code).toBe("payment_method_unusable");
    await profile.store.undo();
    expect(balance(await call(profile, "get_account_balances"), "checking")).toBe(2450.75);
    expect((await call(profile, "list_bills")).unpaid_total).toBe(1072.79);
  });

  it("sets budgets and reports spending against them", async () => {
    const profile = profiles.open({ clock: "2026-12-20T12:00:00Z" });
    const status = await call(profile, "get_budget_status", { category: "dining" });
    const dining = (status.budgets as { spent: number; monthly_limit: number }[])[0]!;
    expect(dining.monthly_limit).toBe(200);
    expect(dining.spent).toBeCloseTo(6.3 + 64 + 8.4, 2);
    expect(await call(profile, "set_budget", { category: "dining", monthly_limit: 50 })).toMatchObject({ monthly_limit: 50, previous_limit: 200 });
    expect(((await call(profile, "get_budget_status", { category: "dining" })).budgets as { over: boolean }[])[0]?.over).toBe(true);
    expect((await failure(profile, "get_budget_status", { category: "health" })).code).toBe("no_budget");
    expect((await failure(profile, "set_budget", { category: "income", monthly_limit: 10 })).code).toBe("invalid_argument");
  });

  it("keeps transfers across a reopened database", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    await call(first, "transfer_money", { amount: 100, to: "savings" });
    first.close();
    const second = profiles.open({ databasePath: path });
    expect(balance(await call(second, "get_account_balances"), "savings")).toBe(8300);
    const recent = await call(second, "list_transactions", { account: "savings", days: 1 });
    expect((recent.transactions as { amount: number }[])[0]?.amount).toBe(100);
  });
});

describe("shopping app", () => {
  it("declares risk classes", () => {
    expect(risks(shoppingApp)).toEqual({
      search_products: "read",
      add_to_cart: "write",
      remove_from_cart: "write",
      view_cart: "read",
      checkout: "spend",
      list_orders: "read",
      track_order: "read",
      return_order_item: "write",
      view_shopping_list: "read",
      add_to_shopping_list: "write",
      remove_from_shopping_list: "write",
    });
  });

  it("searches the catalog by words, category and price", async () => {
    const profile = profiles.open();
    const result = await call(profile, "search_products", { category: "electronics", max_price: 30 });
    const products = result.products as { name: string; price: number }[];
    expect(products.length).toBeGreaterThan(2);
    expect(products.every((product) => product.price <= 30)).toBe(true);
    expect((await failure(profile, "search_products", { category: "weapons" })).code).toBe("invalid_argument");
    expect((await failure(profile, "search_products", { query: "spaceship" })).code).toBe("no_results");
  });

  it("fills a cart, refusing sold-out products and too many", async () => {
    const profile = profiles.open();
    const added = await call(profile, "add_to_cart", { product: "Wireless mouse", quantity: 2 });
    expect(added).toMatchObject({ added: "Wireless mouse", quantity: 2 });
    const soldOut = await failure(profile, "add_to_cart", { product: "HD webcam" });
    expect(soldOut.code).toBe("out_of_stock");
    expect(soldOut.message).toContain("In stock in electronics");
    expect((await failure(profile, "add_to_cart", { product: "E-reader", quantity: 5 })).code).toBe("not_enough_stock");
    expect(await call(profile, "remove_from_cart", { product: "mouse", quantity: 1 })).toMatchObject({ removed: "Wireless mouse", quantity: 1 });
    const cart = await call(profile, "view_cart");
    expect(cart).toMatchObject({ subtotal: 28.97, delivery_fee: 3.99, total: 32.96 });
    expect((await failure(profile, "remove_from_cart", { product: "Yoga mat" })).code).toBe("not_found");
  });

  it("checks out with a card, empties the cart, and tracks delivery over time", async () => {
    const path = profiles.temporaryDatabase();
    const profile = profiles.open({ databasePath: path });
    await call(profile, "add_to_cart", { product: "p-headphones" });
    const order = await call(profile, "checkout", { payment_method: "visa" });
    expect(order).toMatchObject({ order: "order-3", total: 88.97 - 0, status: "processing", paid_with: "Visa Card ending 4242" });
    expect((await call(profile, "view_cart")).lines).toEqual([]);
    expect((await failure(profile, "checkout")).code).toBe("cart_empty");
    profile.close();
    const later = profiles.open({ databasePath: path, clock: "2026-12-02T12:00:00Z" });
    expect(await call(later, "track_order", { order_id: "order-3" })).toMatchObject({ status: "shipped" });
    const delivered = profiles.open({ databasePath: path, clock: "2026-12-04T12:00:00Z" });
    later.close();
    expect(await call(delivered, "track_order", { order_id: "3" })).toMatchObject({ status: "delivered" });
    expect((await call(delivered, "list_orders")).orders).toHaveLength(3);
    expect((await failure(delivered, "track_order", { order_id: "order-99" })).code).toBe("order_not_found");
  });

  it("refuses checkout offline or without funds, and undo restores the cart", async () => {
    const profile = profiles.open();
    await call(profile, "add_to_cart", { product: "Fitness smartwatch", quantity: 5 });
    await call(profile, "add_to_cart", { product: "Noise-cancelling earbuds", quantity: 6 });
    await call(profile, "add_to_cart", { product: "Wireless headphones", quantity: 12 });
    const short = await failure(profile, "checkout", { payment_method: "checking" });
    expect(short.code).toBe("insufficient_funds");
    await goOffline(profile);
    expect((await failure(profile, "checkout", { payment_method: "visa" })).code).toBe("wifi_off");
    const undone = await profile.store.undo(3);
    expect(undone.map((action) => action.tool)).toEqual(["test_offline", "add_to_cart", "add_to_cart"]);
    const cart = await call(profile, "view_cart");
    expect((cart.lines as { product: string }[]).map((line) => line.product)).toEqual(["p-coffee", "p-smartwatch"]);
  });

  it("previews a checkout as a dry run without charging or emptying the cart", async () => {
    const profile = profiles.open();
    const preview = await profile.runTool(tool("checkout"), {}, { dryRun: true });
    expect(preview.value).toMatchObject({ order: "order-3", total: 12.97 });
    expect(preview.changes).toBeGreaterThan(0);
    expect(preview.actionId).toBeUndefined();
    expect((await call(profile, "view_cart")).total).toBe(12.97);
    expect(balance(await call(profile, "get_account_balances"), "visa")).toBe(-312.4);
    expect((await call(profile, "list_orders")).orders).toHaveLength(2);
  });

  it("returns a delivered item for a refund, once, within the window", async () => {
    const path = profiles.temporaryDatabase();
    const profile = profiles.open({ databasePath: path });
    const notYet = await failure(profile, "return_order_item", { order_id: "order-2", product: "USB-C cable" });
    expect(notYet.code).toBe("not_delivered");
    const before = balance(await call(profile, "get_account_balances"), "visa");
    const returned = await call(profile, "return_order_item", { order_id: "order-1", product: "Yoga mat", reason: "too thin" });
    expect(returned).toMatchObject({ returned: "Yoga mat", refund: 24.99, refunded_to: "visa" });
    expect(balance(await call(profile, "get_account_balances"), "visa")).toBeCloseTo(before + 24.99, 2);
    expect((await failure(profile, "return_order_item", { order_id: "order-1", product: "Yoga mat" })).code).toBe("already_returned");
    profile.close();
    const late = profiles.open({ databasePath: path, clock: "2027-02-01T09:00:00Z" });
    expect((await failure(late, "return_order_item", { order_id: "order-1", product: "water bottle" })).code).toBe("return_window_closed");
  });

  it("keeps a shopping list that sums the same item", async () => {
    const profile = profiles.open();
    await call(profile, "add_to_shopping_list", { item: "Milk", quantity: 1, unit: "l" });
    const list = await call(profile, "view_shopping_list");
    expect((list.items as { item: string; quantity: number }[]).find((item) => item.item === "milk")?.quantity).toBe(3);
    expect(await call(profile, "remove_from_shopping_list", { item: "toothpaste" })).toMatchObject({ removed: "toothpaste", items_left: 2 });
    expect((await failure(profile, "remove_from_shopping_list", { item: "caviar" })).code).toBe("not_found");
    await profile.store.undo();
    expect(((await call(profile, "view_shopping_list")).items as unknown[]).length).toBe(3);
  });
});

describe("travel app", () => {
  it("declares risk classes", () => {
    expect(risks(travelApp)).toEqual({
      search_flights: "read",
      book_flight: "spend",
      search_hotels: "read",
      book_hotel: "spend",
      list_bookings: "read",
      cancel_booking: "destructive",
      set_travel_budget: "write",
    });
  });

  it("searches flights by city and date, the same every time, cheapest first", async () => {
    const profile = profiles.open();
    const first = await call(profile, "search_flights", { from: "Lisbon", to: "Madrid", date: "Friday" });
    const again = await call(profile, "search_flights", { from: "LIS", to: "mad", date: "2026-12-04" });
    expect(first).toEqual(again);
    expect(first.date).toBe("2026-12-04");
    const prices = (first.flights as { price: number }[]).map((flight) => flight.price);
    expect(prices).toHaveLength(3);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    expect((await failure(profile, "search_flights", { to: "Atlantis", date: "Friday" })).code).toBe("unknown_airport");
    expect((await failure(profile, "search_flights", { to: "Porto", date: "2026-11-01" })).code).toBe("date_in_past");
    expect((await failure(profile, "search_flights", { from: "Porto", to: "OPO", date: "Friday" })).code).toBe("same_place");
  });

  it("books a flight within budget, charging the card", async () => {
    const profile = profiles.open();
    const search = await call(profile, "search_flights", { to: "Paris", date: "2026-12-18" });
    const cheapest = (search.flights as { flight_id: string; price: number }[])[0]!;
    const booked = await call(profile, "book_flight", { flight_id: cheapest.flight_id });
    expect(booked).toMatchObject({ status: "confirmed", price: cheapest.price, date: "2026-12-18", paid_with: "Visa Card ending 4242" });
    expect(booked.travel_budget_left).toBeCloseTo(1240.01 - cheapest.price, 2);
    expect((await failure(profile, "book_flight", { flight_id: cheapest.flight_id })).code).toBe("already_booked");
    expect((await failure(profile, "book_flight", { flight_id: "XYZ" })).code).toBe("invalid_flight_id");
  });

  it("refuses a booking over the travel budget or the user's limit, saying so", async () => {
    const profile = profiles.open();
    await call(profile, "set_travel_budget", { amount: 300 });
    const search = await call(profile, "search_hotels", { city: "London", check_in: "2026-12-18", nights: 3 });
    const hotel = (search.hotels as { hotel_id: string; total: number }[])[0]!;
    const over = await failure(profile, "book_hotel", { hotel: hotel.hotel_id, check_in: "2026-12-18", nights: 3 });
    expect(over.code).toBe("over_budget");
    expect(over.message).toContain("set_travel_budget");
    const flights = await call(profile, "search_flights", { to: "Porto", date: "2026-12-10" });
    const flight = (flights.flights as { flight_id: string; price: number }[])[0]!;
    const limit = await failure(profile, "book_flight", { flight_id: flight.flight_id, max_price: flight.price - 1 });
    expect(limit.code).toBe("over_budget");
    expect((await call(profile, "list_bookings")).bookings).toHaveLength(2);
  });

  it("books a hotel and cancels with the refund rules", async () => {
    const profile = profiles.open();
    const hotel = await call(profile, "book_hotel", { hotel: "Gràcia B&B", check_in: "2026-12-02", nights: 2 });
    expect(hotel).toMatchObject({ price: 184, check_out: "2026-12-04" });
    const lateCancel = await call(profile, "cancel_booking", { booking_id: String(hotel.booking_id) });
    expect(lateCancel).toMatchObject({ status: "cancelled", refund: 92, kept_by_provider: 92 });
    const early = await call(profile, "cancel_booking", { booking_id: "booking-2" });
    expect(early).toMatchObject({ refund: 158, kept_by_provider: 0 });
    const flight = await call(profile, "cancel_booking", { booking_id: "booking-1" });
    expect(flight.refund).toBe(flight.price);
    expect((await failure(profile, "cancel_booking", { booking_id: "booking-1" })).code).toBe("already_cancelled");
    expect((await failure(profile, "cancel_booking", { booking_id: "booking-42" })).code).toBe("booking_not_found");
  });

  it("says which booking a description written instead of its id names", async () => {
    const profile = profiles.open();
    const named = await failure(profile, "cancel_booking", { booking_id: "the Porto hotel" });
    expect(named.code).toBe("booking_not_found");
    expect(named.message).toBe('No booking "the Porto hotel". The one that matches is booking-2: call again with booking_id="booking-2".');
    expect((await failure(profile, "cancel_booking", { booking_id: "booking-42" })).message).toContain("list_bookings");
  });

  it("keeps bookings across a reopened database; undo reverts a booking and its payment", async () => {
    const path = profiles.temporaryDatabase();
    const first = profiles.open({ databasePath: path });
    const visaBefore = balance(await call(first, "get_account_balances"), "visa");
    await call(first, "book_hotel", { hotel: "Mitte Hotel", check_in: "2026-12-10", nights: 1 });
    first.close();
    const second = profiles.open({ databasePath: path });
    expect((await call(second, "list_bookings")).bookings).toHaveLength(3);
    await second.store.undo();
    expect((await call(second, "list_bookings")).bookings).toHaveLength(2);
    expect(balance(await call(second, "get_account_balances"), "visa")).toBe(visaBefore);
  });
});
