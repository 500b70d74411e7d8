import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { PERSONA } from "../persona.js";
import { CATALOG, PRODUCT_CATEGORIES, type Product } from "./catalog.js";
import { capped, findByName, formatMoney, looseNumber, matchesWords, money } from "../shared.js";
import { localDate } from "../time.js";
import { charge, credit, resolvePaymentMethod } from "./finance.js";

export const SHOPPING_APP = "shopping";

export interface CartLine {
  productId: string;
  quantity: number;
}

export interface OrderLine {
  productId: string;
  name: string;
  quantity: number;
  unitPrice: number;
  returned: number;
}

export interface Order {
  id: string;
  placedAt: string;
  lines: OrderLine[];
  subtotal: number;
  deliveryFee: number;
  total: number;
  paymentAccountId: string;
  address: string;
  /** Returns made, newest last. */
  returns: { productId: string; quantity: number; refund: number; reason: string; at: string }[];
}

/**
 * The shopping list, shared with the recipes app: one record per item name
 * and unit, so that adding a recipe twice sums its quantities.
 */
export interface ShoppingListItem {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  /** Where it came from: "you" or a recipe's name. */
  sources: string[];
}

const FREE_DELIVERY_FROM = 50;
const DELIVERY_FEE = 3.99;
const RETURN_WINDOW_DAYS = 30;
const MAX_CART_LINES = 30;

const cart = (tx: StoreTransaction) => tx.collection<CartLine>(SHOPPING_APP, "cart");
const orders = (tx: StoreTransaction) => tx.collection<Order>(SHOPPING_APP, "orders");
export const shoppingList = (tx: StoreTransaction) => tx.collection<ShoppingListItem>(SHOPPING_APP, "list");

function findProduct(query: string): Product {
  return findByName(CATALOG, query, { what: "product", id: (product) => product.id, name: (product) => product.name, listTool: "search_products" });
}

function productById(id: string): Product {
  const product = CATALOG.find((candidate) => candidate.id === id);
  if (product === undefined) throw new ToolError("not_found", `Product ${id} is no longer sold.`);
  return product;
}

function cartSummary(tx: StoreTransaction) {
  const lines = cart(tx)
    .all()
    .map((line) => {
      const product = productById(line.productId);
      return { product: product.id, name: product.name, quantity: line.quantity, unit_price: product.price, line_total: money(product.price * line.quantity) };
    });
  const subtotal = money(lines.reduce((sum, line) => sum + line.line_total, 0));
  const deliveryFee = lines.length === 0 || subtotal >= FREE_DELIVERY_FROM ? 0 : DELIVERY_FEE;
  return { lines, subtotal, delivery_fee: deliveryFee, total: money(subtotal + deliveryFee) };
}

/** Where a parcel is, from the hours since the order (the shop ships the same day, delivers in two). */
export function deliveryStatus(order: Order, now: Date): { status: string; expected: string } {
  const hours = (now.getTime() - Date.parse(order.placedAt)) / 3_600_000;
  const expected = new Date(Date.parse(order.placedAt) + 48 * 3_600_000).toISOString();
  if (order.lines.every((line) => line.returned >= line.quantity)) return { status: "returned", expected };
  if (hours < 4) return { status: "processing", expected };
  if (hours < 30) return { status: "shipped", expected };
  if (hours < 48) return { status: "out_for_delivery", expected };
  return { status: "delivered", expected };
}

function orderResult(order: Order, now: Date, timeZone: string) {
  const delivery = deliveryStatus(order, now);
  return {
    id: order.id,
    date: localDate(new Date(order.placedAt), timeZone),
    items: order.lines.map((line) => `${line.quantity} × ${line.name}${line.returned > 0 ? ` (${line.returned} returned)` : ""}`),
    total: order.total,
    status: delivery.status,
    expected_delivery: localDate(new Date(delivery.expected), timeZone),
  };
}

function findOrder(tx: StoreTransaction, id: string): Order {
  const wanted = id.trim().toLowerCase();
  const order = orders(tx).get(wanted) ?? orders(tx).get(`order-${wanted.replace(/^#/, "")}`);
  if (order === undefined) throw new ToolError("order_not_found", `No order "${id}". See your orders with list_orders.`);
  return order;
}

/** Add items to the shopping list, summing quantities of the same item and unit. */
export function addToList(tx: StoreTransaction, items: { name: string; quantity: number; unit: string }[], source: string): ShoppingListItem[] {
  const list = shoppingList(tx);
  const touched: ShoppingListItem[] = [];
  for (const item of items) {
    const name = item.name.trim().toLowerCase();
    const unit = item.unit.trim().toLowerCase();
    const existing = list.find((entry) => entry.name === name && entry.unit === unit)[0];
    if (existing !== undefined) {
      const next = {
        ...existing,
        quantity: Math.round((existing.quantity + item.quantity) * 100) / 100,
        sources: existing.sources.includes(source) ? existing.sources : [...existing.sources, source],
      };
      list.put(existing.id, next);
      touched.push(next);
    } else {
      const id = list.nextId("item");
      const next = { id, name, quantity: Math.round(item.quantity * 100) / 100, unit, sources: [source] };
      list.put(id, next);
      touched.push(next);
    }
  }
  return touched;
}

const listItemResult = (item: ShoppingListItem) => ({
  id: item.id,
  item: item.name,
  quantity: item.quantity,
  unit: item.unit === "" ? undefined : item.unit,
  for: item.sources.join(", "),
});

const searchProducts = defineTool({
  name: "search_products",
  description: "Search the shop's catalog by name or category, optionally under a maximum price.",
  input: z.object({
    query: z.string().optional().describe('What to look for, e.g. "headphones"'),
    category: z.string().optional().describe(`A category: ${PRODUCT_CATEGORIES.join(", ")}`),
    max_price: looseNumber(z.number().positive()).optional().describe("Highest price in EUR, e.g. 50"),
  }),
  risk: "read",
  run: ({ query, category, max_price }) => {
    if (category !== undefined && !PRODUCT_CATEGORIES.includes(category.trim().toLowerCase())) {
      throw new ToolError("invalid_argument", `category "${category}" is unknown. Use one of: ${PRODUCT_CATEGORIES.join(", ")}.`);
    }
    const found = CATALOG.filter(
      (product) =>
        (query === undefined || matchesWords(`${product.name} ${product.category}`, query)) &&
        (category === undefined || product.category === category.trim().toLowerCase()) &&
        (max_price === undefined || product.price <= max_price),
    );
    if (found.length === 0) throw new ToolError("no_results", `No products match${query ? ` "${query}"` : ""}. Try a shorter word or another category.`);
    const list = capped(found, 10);
    return {
      products: list.items.map((product) => ({ id: product.id, name: product.name, price: product.price, in_stock: product.stock > 0 })),
      more: list.more,
    };
  },
});

const addToCart = defineTool({
  name: "add_to_cart",
  description: "Put a product in the shopping cart.",
  input: z.object({
    product: z.string().describe('Product name or id, e.g. "Wireless mouse" or "p-mouse"'),
    quantity: looseNumber(z.number().int().min(1).max(99)).optional().describe("How many, e.g. 2 (default 1)"),
  }),
  risk: "write",
  run: ({ product: query, quantity }, context) => {
    const product = findProduct(query);
    const wanted = quantity ?? 1;
    if (product.stock === 0) {
      const alternatives = CATALOG.filter((other) => other.category === product.category && other.stock > 0 && other.id !== product.id).slice(0, 3);
      throw new ToolError(
        "out_of_stock",
        `${product.name} is sold out. ${alternatives.length > 0 ? `In stock in ${product.category}: ${alternatives.map((other) => other.name).join("; ")}.` : "Try again later."}`,
      );
    }
    const lines = cart(context.store);
    const already = lines.get(product.id)?.quantity ?? 0;
    if (already + wanted > product.stock) {
      throw new ToolError("not_enough_stock", `Only ${product.stock} of ${product.name} are in stock (${already} already in the cart). Add ${product.stock - already} or fewer.`);
    }
    if (already === 0 && lines.all().length >= MAX_CART_LINES) {
      throw new ToolError("cart_full", `The cart holds at most ${MAX_CART_LINES} different products. Check out or remove some with remove_from_cart.`);
    }
    lines.put(product.id, { productId: product.id, quantity: already + wanted });
    return { added: product.name, quantity: already + wanted, cart: cartSummary(context.store) };
  },
});

const removeFromCart = defineTool({
  name: "remove_from_cart",
  description: "Take a product out of the cart (all of it, or some).",
  input: z.object({
    product: z.string().describe('Product name or id, e.g. "Wireless mouse"'),
    quantity: looseNumber(z.number().int().min(1)).optional().describe("How many to remove (default all)"),
  }),
  risk: "write",
  run: ({ product: query, quantity }, context) => {
    const lines = cart(context.store);
    const inCart = lines.all().map((line) => productById(line.productId));
    if (inCart.length === 0) throw new ToolError("cart_empty", "The cart is empty. Nothing to remove.");
    const product = findByName(inCart, query, { what: "product in the cart", id: (item) => item.id, name: (item) => item.name, listTool: "view_cart" });
    const line = lines.get(product.id)!;
    const removing = Math.min(quantity ?? line.quantity, line.quantity);
    if (removing >= line.quantity) lines.delete(product.id);
    else lines.put(product.id, { ...line, quantity: line.quantity - removing });
    return { removed: product.name, quantity: removing, cart: cartSummary(context.store) };
  },
});

const viewCart = defineTool({
  name: "view_cart",
  description: "Show what is in the shopping cart and the total.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => cartSummary(context.store),
});

const checkout = defineTool({
  name: "checkout",
  description: "Buy everything in the cart, paying with a card or account, delivered to home by default.",
  input: z.object({
    payment_method: z.string().optional().describe('"visa" (default) or "checking"'),
    address: z.string().optional().describe("Delivery address (default home)"),
  }),
  risk: "spend",
  run: ({ payment_method, address }, context) => {
    const summary = cartSummary(context.store);
    if (summary.lines.length === 0) throw new ToolError("cart_empty", "The cart is empty. Add products with add_to_cart, then check out.");
    const account = resolvePaymentMethod(context.store, payment_method);
    requireConnectivity(context.store, "check out");
    const at = context.now();
    const ordersCollection = orders(context.store);
    const id = ordersCollection.nextId("order");
    const entry = charge(context.store, { account, amount: summary.total, description: `Shop order ${id}`, category: "shopping", at, counterparty: "Shop" });
    const order: Order = {
      id,
      placedAt: at.toISOString(),
      lines: summary.lines.map((line) => ({ productId: line.product, name: line.name, quantity: line.quantity, unitPrice: line.unit_price, returned: 0 })),
      subtotal: summary.subtotal,
      deliveryFee: summary.delivery_fee,
      total: summary.total,
      paymentAccountId: account.id,
      address: address?.trim() || PERSONA.homeAddress,
      returns: [],
    };
    ordersCollection.put(id, order);
    for (const line of cart(context.store).all()) cart(context.store).delete(line.productId);
    return { ...orderResult(order, at, context.timeZone), order: id, paid_with: account.name, transaction: entry.id };
  },
});

const listOrders = defineTool({
  name: "list_orders",
  description: "List your shop orders, newest first, with their delivery status.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const all = orders(context.store)
      .all()
      .sort((a, b) => b.placedAt.localeCompare(a.placedAt));
    const list = capped(all, 10);
    return { orders: list.items.map((order) => orderResult(order, context.now(), context.timeZone)), more: list.more };
  },
});

const trackOrder = defineTool({
  name: "track_order",
  description: "Track the delivery of an order by its id, e.g. order-1.",
  input: z.object({ order_id: z.string().describe('Order id, e.g. "order-1"') }),
  risk: "read",
  run: ({ order_id }, context) => {
    const order = findOrder(context.store, order_id);
    const now = context.now();
    const delivery = deliveryStatus(order, now);
    const steps = ["processing", "shipped", "out_for_delivery", "delivered"];
    return {
      ...orderResult(order, now, context.timeZone),
      address: order.address,
      progress: steps.map((step) => ({ step, done: steps.indexOf(step) <= steps.indexOf(delivery.status) || delivery.status === "returned" })),
    };
  },
});

const returnOrderItem = defineTool({
  name: "return_order_item",
  description: "Return a delivered product from an order for a refund (within 30 days of delivery).",
  input: z.object({
    order_id: z.string().describe('Order id, e.g. "order-1"'),
    product: z.string().describe('The product to return, e.g. "Wireless mouse"'),
    quantity: looseNumber(z.number().int().min(1)).optional().describe("How many (default all)"),
    reason: z.string().max(200).optional().describe('Why, e.g. "does not fit"'),
  }),
  risk: "write",
  run: ({ order_id, product: query, quantity, reason }, context) => {
    const order = findOrder(context.store, order_id);
    const now = context.now();
    const delivery = deliveryStatus(order, now);
    if (delivery.status !== "delivered") {
      throw new ToolError(
        "not_delivered",
        `Order ${order.id} is ${delivery.status.replace(/_/g, " ")}${delivery.status === "returned" ? " already" : ""}; only delivered items can be returned.` +
          (delivery.status === "returned" ? "" : ` It should arrive by ${localDate(new Date(delivery.expected), context.timeZone)}.`),
      );
    }
    const daysSinceDelivery = (now.getTime() - Date.parse(delivery.expected)) / 86_400_000;
    if (daysSinceDelivery > RETURN_WINDOW_DAYS) {
      throw new ToolError("return_window_closed", `Order ${order.id} was delivered more than ${RETURN_WINDOW_DAYS} days ago; the return window has closed.`);
    }
    const line = findByName(order.lines, query, { what: `product in ${order.id}`, id: (item) => item.productId, name: (item) => item.name, listTool: "track_order" });
    const returnable = line.quantity - line.returned;
    if (returnable <= 0) throw new ToolError("already_returned", `${line.name} from ${order.id} was already returned.`);
    const count = quantity ?? returnable;
    if (count > returnable) throw new ToolError("invalid_argument", `Only ${returnable} of ${line.name} can still be returned from ${order.id}.`);
    const refund = money(line.unitPrice * count);
    credit(context.store, { accountId: order.paymentAccountId, amount: refund, description: `Refund ${order.id}: ${line.name}`, category: "shopping", at: now, counterparty: "Shop" });
    const next: Order = {
      ...order,
      lines: order.lines.map((item) => (item.productId === line.productId ? { ...item, returned: item.returned + count } : item)),
      returns: [...order.returns, { productId: line.productId, quantity: count, refund, reason: reason ?? "", at: now.toISOString() }],
    };
    orders(context.store).put(order.id, next);
    return { returned: line.name, quantity: count, refund, refunded_to: order.paymentAccountId, pickup: "A courier collects the parcel at your address within 2 days." };
  },
});

const viewShoppingList = defineTool({
  name: "view_shopping_list",
  description: "Show the shopping list (things to buy, including recipe ingredients).",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const list = capped(shoppingList(context.store).all(), 40);
    return { items: list.items.map(listItemResult), more: list.more };
  },
});

const addToShoppingList = defineTool({
  name: "add_to_shopping_list",
  description: "Add an item to the shopping list.",
  input: z.object({
    item: z.string().min(1).max(80).describe('What to buy, e.g. "milk"'),
    quantity: looseNumber(z.number().positive().max(1000)).optional().describe("How much, e.g. 2 (default 1)"),
    unit: z.string().max(20).optional().describe('Unit, e.g. "kg" or "l" (default none)'),
  }),
  risk: "write",
  run: ({ item, quantity, unit }, context) => {
    if (item.trim() === "") throw new ToolError("invalid_argument", 'item is empty. Say what to buy, e.g. "milk".');
    const [added] = addToList(context.store, [{ name: item, quantity: quantity ?? 1, unit: unit ?? "" }], "you");
    return { added: listItemResult(added!), items_on_list: shoppingList(context.store).all().length };
  },
});

const removeFromShoppingList = defineTool({
  name: "remove_from_shopping_list",
  description: "Take an item off the shopping list (bought, or not needed).",
  input: z.object({ item: z.string().describe('The item, e.g. "milk" or "item-3"') }),
  risk: "write",
  run: ({ item }, context) => {
    const list = shoppingList(context.store);
    const all = list.all();
    if (all.length === 0) throw new ToolError("list_empty", "The shopping list is empty. Nothing to remove.");
    const target = findByName(all, item, { what: "shopping list item", id: (entry) => entry.id, name: (entry) => entry.name, listTool: "view_shopping_list" });
    list.delete(target.id);
    return { removed: target.name, items_left: all.length - 1 };
  },
});

export const shoppingApp: App = {
  name: SHOPPING_APP,
  group: "errands",
  title: "Shopping",
  description: "An online shop: catalog, cart, checkout, orders, delivery tracking, returns; and your shopping list.",
  tools: [
    searchProducts,
    addToCart,
    removeFromCart,
    viewCart,
    checkout,
    listOrders,
    trackOrder,
    returnOrderItem,
    viewShoppingList,
    addToShoppingList,
    removeFromShoppingList,
  ],
  seed(tx, environment) {
    const now = environment.now().getTime();
    const past: [number, [string, number][], string][] = [
      [-12 * 24, [["p-yoga-mat", 1], ["p-water-bottle", 1]], "visa"],
      [-26, [["p-cable", 2], ["p-batteries", 1]], "visa"],
    ];
    for (const [hours, lines, accountId] of past) {
      const id = orders(tx).nextId("order");
      const orderLines = lines.map(([productId, quantity]) => {
        const product = productById(productId);
        return { productId, name: product.name, quantity, unitPrice: product.price, returned: 0 };
      });
      const subtotal = money(orderLines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0));
      const deliveryFee = subtotal >= FREE_DELIVERY_FROM ? 0 : DELIVERY_FEE;
      orders(tx).put(id, {
        id,
        placedAt: new Date(now + hours * 3_600_000).toISOString(),
        lines: orderLines,
        subtotal,
        deliveryFee,
        total: money(subtotal + deliveryFee),
        paymentAccountId: accountId,
        address: PERSONA.homeAddress,
        returns: [],
      });
    }
    cart(tx).put("p-coffee", { productId: "p-coffee", quantity: 2 });
    addToList(tx, [
      { name: "milk", quantity: 2, unit: "l" },
      { name: "bananas", quantity: 1, unit: "kg" },
      { name: "toothpaste", quantity: 1, unit: "" },
    ], "you");
  },
  view(tx, environment) {
    const now = environment.now();
    const summary = cartSummary(tx);
    const allOrders = orders(tx)
      .all()
      .sort((a, b) => b.placedAt.localeCompare(a.placedAt));
    const list = shoppingList(tx).all();
    const text = [
      `Cart (${summary.lines.length} products, total ${formatMoney(summary.total)}):`,
      ...summary.lines.map((line) => `  ${line.quantity} × ${line.name}  ${formatMoney(line.line_total)}`),
      "Orders:",
      ...(allOrders.length === 0
        ? ["  none"]
        : allOrders.map((order) => {
            const result = orderResult(order, now, environment.timeZone);
            return `  ${order.id}  ${result.date}  ${formatMoney(order.total).padStart(11)}  ${result.status}  (${result.items.join(", ")})`;
          })),
      "Shopping list:",
      ...(list.length === 0 ? ["  empty"] : list.map((item) => `  - ${item.name}${item.quantity !== 1 || item.unit ? ` ${item.quantity} ${item.unit}`.trimEnd() : ""}`)),
    ].join("\n");
    return {
      text,
      data: { cart: summary, orders: allOrders.map((order) => orderResult(order, now, environment.timeZone)), shoppingList: list.map(listItemResult) },
    };
  },
};
