import { PythonRandom } from "../python-random.js";
import { ApiExecutionError, type MethodDefinition, StatefulApi, configValue } from "./stateful-api.js";

type Stock = Record<string, number>;
type Order = Record<string, unknown> & { status: unknown; symbol?: unknown };

/** The reference's fixed "now": 2024-09-01 10:30 (read as UTC here, so runs repeat on any machine). */
const CURRENT_TIME_SECONDS = Date.UTC(2024, 8, 1, 10, 30) / 1000;

const DEFAULT_ORDERS: Record<string, Order> = {
  "12345": { id: 12345, order_type: "Buy", symbol: "AAPL", price: 210.65, amount: 10, status: "Completed" },
  "12446": { id: 12446, order_type: "Sell", symbol: "GOOG", price: 2840.56, amount: 5, status: "Pending" },
};

function stock(price: number, percentChange: number, volume: number, ma5: number, ma20: number): Stock {
  return { price, percent_change: percentChange, volume, "MA(5)": ma5, "MA(20)": ma20 };
}

const DEFAULT_STOCKS: Record<string, Stock> = {
  AAPL: stock(227.16, 0.17, 2.552, 227.11, 227.09),
  GOOG: stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
  TSLA: stock(667.92, -0.12, 1.654, 671.15, 668.2),
  MSFT: stock(310.23, 0.09, 3.234, 309.88, 310.11),
  NVDA: stock(220.34, 0.34, 1.234, 220.45, 220.67),
  ALPH: stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
  OMEG: stock(457.23, 0.12, 2.345, 456.78, 458.12),
  QUAS: stock(725.89, -0.03, 1.789, 726.45, 728.0),
  NEPT: stock(88.34, 0.19, 0.654, 88.21, 88.67),
  SYNX: stock(345.67, 0.11, 2.112, 345.34, 346.12),
  ZETA: stock(22.09, -0.05, 0.789, 22.12, 22.34),
};

const SYMBOLS_BY_NAME: Record<string, string> = {
  Apple: "AAPL",
  Google: "GOOG",
  Tesla: "TSLA",
  Microsoft: "MSFT",
  Nvidia: "NVDA",
  "Zeta Corp": "ZETA",
  "Alpha Tech": "ALPH",
  "Omega Industries": "OMEG",
  "Quasar Ltd.": "QUAS",
  "Neptune Systems": "NEPT",
  "Synex Solutions": "SYNX",
  Amazon: "AMZN",
  Gorilla: "GORI",
};

const STOCKS_BY_SECTOR: Record<string, string[]> = {
  Technology: ["AAPL", "GOOG", "MSFT", "NVDA"],
  Automobile: ["TSLA", "F", "GM"],
};

function formatTimestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ");
}

/** Python's strptime for `%Y-%m-%d` (and the timestamp format), as UTC milliseconds. */
function parseDate(text: string, withTime: boolean): number {
  const match = withTime ? /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text) : /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const format = withTime ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d";
  if (!match) throw new ApiExecutionError(`time data '${text}' does not match format '${format}'`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!, hour ?? 0, minute ?? 0, second ?? 0));
  if (date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) throw new ApiExecutionError("day is out of range for month");
  return date.getTime();
}

/** BFCL's TradingBot: a brokerage account, orders, a watch list and market data. */
export class TradingBot extends StatefulApi {
  readonly className = "TradingBot";
  private orders: Record<string, Order> = {};
  private accountInfo: Record<string, number> = {};
  private authenticated = false;
  private marketStatus = "Closed";
  private orderCounter = 12446;
  private stocks: Record<string, Stock> = {};
  private watchList: string[] = [];
  private transactionHistory: Array<Record<string, unknown>> = [];
  private longContext = false;
  private random = new PythonRandom(1053520);

  load(config: Record<string, unknown>): void {
    this.orders = configValue(config, "orders", DEFAULT_ORDERS);
    this.accountInfo = configValue(config, "account_info", { account_id: 12345, balance: 10000.0, binding_card: 1974202140965533 });
    this.authenticated = configValue(config, "authenticated", false);
    this.marketStatus = configValue(config, "market_status", "Closed");
    this.orderCounter = configValue(config, "order_counter", 12446);
    this.stocks = configValue(config, "stocks", DEFAULT_STOCKS);
    this.watchList = configValue(config, "watch_list", ["NVDA"]);
    this.transactionHistory = configValue(config, "transaction_history", []);
    this.longContext = false;
    this.random = new PythonRandom(typeof config.random_seed === "number" ? config.random_seed : 1053520);
  }

  state(): Record<string, unknown> {
    return structuredClone({
      orders: this.orders,
      account_info: this.accountInfo,
      authenticated: this.authenticated,
      market_status: this.marketStatus,
      order_counter: this.orderCounter,
      stocks: this.stocks,
      watch_list: this.watchList,
      transaction_history: this.transactionHistory,
      long_context: this.longContext,
    });
  }

  private transactionTimestamp(): string {
    return formatTimestamp(this.random.randint(CURRENT_TIME_SECONDS, CURRENT_TIME_SECONDS + 86400));
  }

  /** Orders are keyed by integer ids; a string id never matches, as in Python. */
  private order(orderId: unknown): Order | undefined {
    if (typeof orderId !== "number" || !Number.isInteger(orderId)) return undefined;
    return Object.hasOwn(this.orders, String(orderId)) ? this.orders[String(orderId)] : undefined;
  }

  private orderIds(): Array<number | string> {
    return Object.keys(this.orders).map((key) => (/^\d+$/.test(key) ? Number(key) : key));
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    get_current_time: { parameters: [], run: () => ({ current_time: "10:30 AM" }) },
    get_symbol_by_name: {
      parameters: ["name"],
      run: (args) => {
        const name = String(args.raw("name"));
        return { symbol: Object.hasOwn(SYMBOLS_BY_NAME, name) ? SYMBOLS_BY_NAME[name] : "Stock not found" };
      },
    },
    get_stock_info: {
      parameters: ["symbol"],
      run: (args) => {
        const symbol = String(args.raw("symbol"));
        return Object.hasOwn(this.stocks, symbol) ? structuredClone(this.stocks[symbol]) : { error: `Stock with symbol '${symbol}' not found.` };
      },
    },
    get_order_details: {
      parameters: ["order_id"],
      run: (args) => {
        const orderId = args.raw("order_id");
        const order = this.order(orderId);
        if (order === undefined) {
          return { error: `Order with ID ${String(orderId)} not found.Here is the list of orders_id: [${this.orderIds().join(", ")}]` };
        }
        return structuredClone(order);
      },
    },
    cancel_order: {
      parameters: ["order_id"],
      run: (args) => {
        const orderId = args.raw("order_id");
        const order = this.order(orderId);
        if (order === undefined) return { error: `Order with ID ${String(orderId)} not found.` };
        if (order.status === "Completed") return { error: `Can't cancel order ${String(orderId)}. Order is already completed.` };
        order.status = "Cancelled";
        return { order_id: orderId, status: "Cancelled" };
      },
    },
    place_order: {
      parameters: ["order_type", "symbol", "price", "amount"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please log in to place an order." };
        const orderType = args.string("order_type");
        const symbol = String(args.raw("symbol"));
        const price = args.number("price");
        const amount = args.number("amount");
        if (!Object.hasOwn(this.stocks, symbol)) return { error: `Invalid stock symbol: ${symbol}` };
        if (price <= 0 || amount <= 0) return { error: "Price and amount must be positive values." };
        if (orderType.toLowerCase() === "buy") {
          const totalCost = price * Math.trunc(amount);
          const balance = this.accountInfo.balance ?? 0;
          if (totalCost > balance) return { error: `Insufficient funds: required $${totalCost.toFixed(2)} but only $${balance.toFixed(2)} available.` };
        }
        const orderId = this.orderCounter;
        this.orders[String(orderId)] = { id: orderId, order_type: orderType, symbol, price, amount, status: "Open" };
        this.orderCounter += 1;
        return { order_id: orderId, order_type: orderType, status: "Pending", price, amount };
      },
    },
    withdraw_funds: {
      parameters: ["amount"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please log in to make a transaction." };
        if (this.marketStatus !== "Open") return { error: "Market is closed. Transactions are not allowed." };
        const amount = args.number("amount");
        if (amount <= 0) return { error: "Transaction amount must be positive." };
        const balance = this.accountInfo.balance ?? 0;
        if (amount > balance) return { error: "Insufficient funds for withdrawal." };
        this.accountInfo.balance = balance - amount;
        this.transactionHistory.push({ type: "withdrawal", amount, timestamp: this.transactionTimestamp() });
        return { status: "Withdrawal successful", new_balance: this.accountInfo.balance };
      },
    },
    get_account_info: {
      parameters: [],
      run: () => (this.authenticated ? structuredClone(this.accountInfo) : { error: "User not authenticated. Please log in to view account information." }),
    },
    trading_login: {
      parameters: ["username", "password"],
      run: () => {
        if (this.authenticated) return { status: "Already logged in" };
        this.authenticated = true;
        return { status: "Logged in successfully" };
      },
    },
    trading_get_login_status: { parameters: [], run: () => ({ status: Boolean(this.authenticated) }) },
    trading_logout: {
      parameters: [],
      run: () => {
        if (!this.authenticated) return { status: "No user is currently logged in" };
        this.authenticated = false;
        return { status: "Logged out successfully" };
      },
    },
    fund_account: {
      parameters: ["amount"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please log in to fund the account." };
        const amount = args.number("amount");
        if (amount <= 0) return { error: "Funding amount must be positive." };
        this.accountInfo.balance = (this.accountInfo.balance ?? 0) + amount;
        this.transactionHistory.push({ type: "deposit", amount, timestamp: this.transactionTimestamp() });
        return { status: "Account funded successfully", new_balance: this.accountInfo.balance };
      },
    },
    remove_stock_from_watchlist: {
      parameters: ["symbol"],
      run: (args) => {
        if (!this.authenticated) return { error: "User not authenticated. Please log in to modify the watchlist." };
        const symbol = String(args.raw("symbol"));
        const index = this.watchList.indexOf(symbol);
        if (index < 0) return { error: `Stock ${symbol} not found in watchlist.` };
        this.watchList.splice(index, 1);
        return { status: `Stock ${symbol} removed from watchlist successfully.` };
      },
    },
    get_watchlist: {
      parameters: [],
      run: () => (this.authenticated ? { watchlist: [...this.watchList] } : ["Error: User not authenticated. Please log in to view the watchlist."]),
    },
    get_order_history: {
      parameters: [],
      run: () => (this.authenticated ? { history: this.orderIds() } : [{ error: "User not authenticated. Please log in to view order history." }]),
    },
    get_transaction_history: {
      parameters: ["start_date?", "end_date?"],
      run: (args) => {
        if (!this.authenticated) return [{ error: "User not authenticated. Please log in to view transaction history." }];
        const startText = args.optionalString("start_date");
        const endText = args.optionalString("end_date");
        const start = startText ? parseDate(startText, false) : -Infinity;
        const end = endText ? parseDate(endText, false) : Infinity;
        const history = this.transactionHistory.filter((transaction) => {
          const time = parseDate(String(transaction.timestamp), true);
          return start <= time && time <= end;
        });
        return { transaction_history: structuredClone(history) };
      },
    },
    get_available_stocks: {
      parameters: ["sector"],
      run: (args) => {
        const sector = String(args.raw("sector"));
        return { stock_list: Object.hasOwn(STOCKS_BY_SECTOR, sector) ? [...STOCKS_BY_SECTOR[sector]!] : [] };
      },
    },
    filter_stocks_by_price: {
      parameters: ["stocks", "min_price", "max_price"],
      run: (args) => {
        const minimum = args.number("min_price");
        const maximum = args.number("max_price");
        const priceOf = (symbol: unknown): number => (typeof symbol === "string" && Object.hasOwn(this.stocks, symbol) ? (this.stocks[symbol]!.price ?? 0) : 0);
        return { filtered_stocks: args.list("stocks").filter((symbol) => priceOf(symbol) >= minimum && priceOf(symbol) <= maximum) };
      },
    },
    add_to_watchlist: {
      parameters: ["stock"],
      run: (args) => {
        const symbol = String(args.raw("stock"));
        if (!this.watchList.includes(symbol) && Object.hasOwn(this.stocks, symbol)) this.watchList.push(symbol);
        return { watchlist: [...this.watchList] };
      },
    },
    notify_price_change: {
      parameters: ["stocks", "threshold"],
      run: (args) => {
        const threshold = args.number("threshold");
        const changed = args
          .list("stocks")
          .filter((symbol): symbol is string => typeof symbol === "string" && Object.hasOwn(this.stocks, symbol))
          .filter((symbol) => Math.abs(this.stocks[symbol]!.percent_change ?? 0) >= threshold);
        return changed.length > 0
          ? { notification: `Stocks ${changed.join(", ")} have significant price changes.` }
          : { notification: "No significant price changes in the selected stocks." };
      },
    },
  };
}
