import { PythonRandom } from "../python-random.js";
import { ApiExecutionError, type MethodDefinition, StatefulApi, configValue, pythonRound } from "./stateful-api.js";

type Card = Record<string, unknown> & { balance?: number };
type Booking = Record<string, unknown> & { card_id: string; travel_cost: number };

/** Economy fare between two airports (origin → destination → cost). */
const BASE_COSTS: Record<string, Record<string, number>> = {
  SFO: { LAX: 200, JFK: 500, ORD: 400, BOS: 450, RMS: 300, SBK: 350, MPC: 370, SVP: 320, SHD: 330, SSV: 340, OKD: 360, WLB: 310, CRH: 380, ATV: 390, PHV: 420, GFD: 430, CIA: 700 },
  LAX: { SFO: 100, JFK: 600, ORD: 500, BOS: 550, RMS: 310, SBK: 320, MPC: 330, SVP: 340, SHD: 350, SSV: 360, OKD: 370, WLB: 380, CRH: 390, ATV: 400, PHV: 410, GFD: 420, HND: 430 },
  JFK: { ORD: 300, BOS: 250, RMS: 450, SBK: 460, MPC: 470, SVP: 480, SHD: 490, SSV: 500, OKD: 510, WLB: 520, CRH: 530, ATV: 540, PHV: 550, GFD: 560, LAX: 570, HND: 800, PVG: 950, PEK: 1000 },
  ORD: { LAX: 180, BOS: 200, RMS: 350, SBK: 360, MPC: 370, SVP: 380, SHD: 390, SSV: 400, OKD: 410, WLB: 420, CRH: 430, ATV: 440, PHV: 450, GFD: 460 },
  BOS: { RMS: 400, SBK: 410, MPC: 420, SVP: 430, SHD: 440, SSV: 450, OKD: 460, WLB: 470, CRH: 480, ATV: 490, PHV: 500, GFD: 510 },
  RMS: { BOS: 200, JFK: 210, SBK: 220, MPC: 230, SVP: 240, SHD: 250, SSV: 260, OKD: 270, WLB: 280, CRH: 290, ATV: 300, PHV: 310, GFD: 320, LAX: 330 },
  SBK: { MPC: 200, SVP: 210, SHD: 220, SSV: 230, OKD: 240, WLB: 250, CRH: 260, ATV: 270, PHV: 280, GFD: 290 },
  MPC: { SVP: 210, SHD: 220, SSV: 230, OKD: 240, WLB: 250, CRH: 260, ATV: 270, PHV: 280, GFD: 290 },
  SVP: { SHD: 230, SSV: 240, OKD: 250, WLB: 260, CRH: 270, ATV: 280, PHV: 290, GFD: 300 },
  SHD: { SSV: 220, OKD: 230, WLB: 240, CRH: 250, ATV: 260, PHV: 270, GFD: 280 },
  SSV: { OKD: 240, WLB: 250, CRH: 260, ATV: 270, PHV: 280, GFD: 290 },
  OKD: { WLB: 230, CRH: 240, ATV: 250, PHV: 260, GFD: 270, LAX: 220 },
  WLB: { CRH: 250, ATV: 260, PHV: 270, GFD: 280 },
  CRH: { ATV: 240, PHV: 250, GFD: 260, SFO: 270, RMS: 280, HKG: 290, JFK: 300 },
  ATV: { PHV: 230, GFD: 240 },
  PHV: { GFD: 220 },
  LHR: { CDG: 100 },
};

const CLASS_FACTORS: Record<string, number> = { economy: 1, business: 2, first: 5 };

const EXCHANGE_RATES: Array<[string, string, number]> = [
  ["USD", "RMB", 7],
  ["USD", "EUR", 0.8],
  ["USD", "JPY", 110],
  ["USD", "GBP", 0.7],
  ["USD", "CAD", 1.3],
  ["USD", "AUD", 1.4],
  ["USD", "INR", 70],
  ["USD", "RUB", 60],
  ["USD", "BRL", 3.8],
  ["USD", "MXN", 20],
];

const AIRPORTS = ["RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG", "CIA", "CRH", "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS"];

const AIRPORTS_BY_CITY: Record<string, string> = {
  Rivermist: "RMS",
  Stonebrook: "SBK",
  Maplecrest: "MPC",
  Silverpine: "SVP",
  Shadowridge: "SHD",
  London: "LHR",
  Paris: "CDG",
  "Sunset Valley": "SSV",
  Oakendale: "OKD",
  Willowbend: "WLB",
  "Crescent Hollow": "CRH",
  Autumnville: "ATV",
  Pinehaven: "PHV",
  Greenfield: "GFD",
  "San Francisco": "SFO",
  "Los Angeles": "LAX",
  "New York": "JFK",
  Chicago: "ORD",
  Boston: "BOS",
  Beijing: "PEK",
  "Hong Kong": "HKG",
  Rome: "CIA",
  Tokyo: "HND",
};

function isValidDate(text: string): { year: number; month: number; day: number } | undefined {
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { year, month, day } : undefined;
}

/** Python's `str()` of a list of strings, as the reference puts it in messages. */
function pythonList(items: string[]): string {
  return `[${items.map((item) => `'${item}'`).join(", ")}]`;
}

export interface TravelApiOptions {
  /** The day the age check counts from. Default: today. */
  today?: () => Date;
}

/** BFCL's TravelAPI (travel_booking): a token, credit cards, flight bookings, insurance and a budget. */
export class TravelAPI extends StatefulApi {
  readonly className = "TravelAPI";
  private random = new PythonRandom(141053);
  private creditCardList: Record<string, Card> = {};
  private bookingRecord: Record<string, Booking> = {};
  private accessToken: string | null = null;
  private tokenType: string | null = null;
  private tokenExpiresIn: number | null = null;
  private tokenScope: string | null = null;
  private userFirstName: string | null = null;
  private userLastName: string | null = null;
  private budgetLimit: number | null = null;
  private longContext = false;
  private flightCostLookup = new Map<string, number>();
  private readonly today: () => Date;

  constructor(options: TravelApiOptions = {}) {
    super();
    this.today = options.today ?? (() => new Date());
  }

  load(config: Record<string, unknown>): void {
    this.random = new PythonRandom(typeof config.random_seed === "number" ? config.random_seed : 141053);
    this.creditCardList = configValue(config, "credit_card_list", {});
    this.bookingRecord = configValue(config, "booking_record", {});
    this.accessToken = configValue<string | null>(config, "access_token", null);
    this.tokenType = configValue<string | null>(config, "token_type", null);
    this.tokenExpiresIn = configValue<number | null>(config, "token_expires_in", null);
    this.tokenScope = configValue<string | null>(config, "token_scope", null);
    this.userFirstName = configValue<string | null>(config, "user_first_name", null);
    this.userLastName = configValue<string | null>(config, "user_last_name", null);
    this.budgetLimit = configValue<number | null>(config, "budget_limit", null);
    this.longContext = false;
    this.flightCostLookup = new Map();
  }

  state(): Record<string, unknown> {
    return structuredClone({
      credit_card_list: this.creditCardList,
      booking_record: this.bookingRecord,
      access_token: this.accessToken,
      token_type: this.tokenType,
      token_expires_in: this.tokenExpiresIn,
      token_scope: this.tokenScope,
      user_first_name: this.userFirstName,
      user_last_name: this.userLastName,
      budget_limit: this.budgetLimit,
      long_context: this.longContext,
    });
  }

  private flightCost(from: string, to: string, date: string, travelClass: string): number[] {
    const base = Object.hasOwn(BASE_COSTS, from) ? BASE_COSTS[from]![to] : undefined;
    if (base === undefined) throw new ApiExecutionError("No available route for the given airports.");
    const factor = CLASS_FACTORS[travelClass];
    if (factor === undefined) throw new ApiExecutionError("Invalid travel class. Options are: economy, business, first.");
    const digitSum = [...date].filter((character) => /[0-9]/.test(character)).reduce((sum, digit) => sum + Number(digit), 0);
    const cost = base * factor * (digitSum % 2 === 0 ? 2 : 1);
    this.flightCostLookup = new Map([[`${from}|${to}|${travelClass}|${date}`, cost]]);
    return [cost];
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    authenticate_travel: {
      parameters: ["client_id", "client_secret", "refresh_token", "grant_type", "user_first_name", "user_last_name"],
      run: (args) => {
        this.tokenExpiresIn = 2;
        this.accessToken = String(this.random.randint(100000, 999999));
        this.tokenType = "Bearer";
        this.tokenScope = args.raw("grant_type") as string;
        this.userFirstName = args.raw("user_first_name") as string;
        this.userLastName = args.raw("user_last_name") as string;
        return { expires_in: 2, access_token: this.accessToken, token_type: "Bearer", scope: this.tokenScope };
      },
    },
    travel_get_login_status: { parameters: [], run: () => ({ status: !(this.tokenExpiresIn === null || this.tokenExpiresIn === 0) }) },
    get_budget_fiscal_year: { parameters: ["lastModifiedAfter?", "includeRemoved?"], run: () => ({ budget_fiscal_year: "2018" }) },
    register_credit_card: {
      parameters: ["access_token", "card_number", "expiration_date", "cardholder_name", "card_verification_number"],
      run: (args) => {
        if (this.tokenExpiresIn === null) return { error: "Token not initialized" };
        if (this.tokenExpiresIn === 0) return { error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { error: "Invalid access token" };
        const cardNumber = String(args.raw("card_number"));
        if (Object.hasOwn(this.creditCardList, cardNumber)) return { error: "Card already registered" };
        const cardId = String(this.random.randint(100000000000, 999999999999));
        this.creditCardList[cardId] = {
          card_number: args.raw("card_number"),
          expiration_date: args.raw("expiration_date"),
          cardholder_name: args.raw("cardholder_name"),
          card_verification_number: args.raw("card_verification_number"),
          balance: this.random.randint(10000, 99999),
        };
        return { card_id: cardId };
      },
    },
    get_flight_cost: {
      parameters: ["travel_from", "travel_to", "travel_date", "travel_class"],
      run: (args) => ({
        travel_cost_list: this.flightCost(args.string("travel_from"), args.string("travel_to"), args.string("travel_date"), args.string("travel_class")),
      }),
    },
    get_credit_card_balance: {
      parameters: ["access_token", "card_id"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { error: "Invalid access token" };
        const cardId = String(args.raw("card_id"));
        if (!Object.hasOwn(this.creditCardList, cardId)) {
          return { error: `Card not registered. Here are a list of card_id's: ${pythonList(Object.keys(this.creditCardList))}` };
        }
        return { card_balance: this.creditCardList[cardId]!.balance };
      },
    },
    book_flight: {
      parameters: ["access_token", "card_id", "travel_date", "travel_from", "travel_to", "travel_class"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { booking_status: false, error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { booking_status: false, error: "Invalid access token" };
        const cardId = String(args.raw("card_id"));
        const card = Object.hasOwn(this.creditCardList, cardId) ? this.creditCardList[cardId]! : undefined;
        if (card === undefined) return { booking_status: false, error: "Card not registered" };
        if (!Object.hasOwn(card, "balance")) return { booking_status: false, error: "Balance not found" };
        const from = args.string("travel_from");
        const to = args.string("travel_to");
        const date = args.string("travel_date");
        const travelClass = args.string("travel_class");
        if (!AIRPORTS.includes(from)) return { booking_status: false, error: `Invalid departure airport code: ${from}` };
        if (!AIRPORTS.includes(to)) return { booking_status: false, error: `Invalid destination airport code: ${to}` };
        if (isValidDate(date) === undefined) return { booking_status: false, error: "Invalid date format. Use YYYY-MM-DD." };
        if (CLASS_FACTORS[travelClass] === undefined) {
          return { booking_status: false, error: "Invalid travel class. Must be one of {'economy', 'business', 'first'}" };
        }
        let cost: number;
        try {
          this.flightCost(from, to, date, travelClass);
          const entry = this.flightCostLookup.get(`${from}|${to}|${travelClass}|${date}`);
          if (entry === undefined) return { booking_status: false, error: "No available route for the given parameters" };
          cost = entry;
        } catch (error) {
          if (error instanceof ApiExecutionError) return { booking_status: false, error: error.message };
          throw error;
        }
        const balance = card.balance ?? 0;
        if (balance < cost) return { booking_status: false, error: "Insufficient funds" };
        if (this.budgetLimit !== null && balance < this.budgetLimit) return { booking_status: false, error: "Balance is less than budget limit" };
        card.balance = balance - cost;
        const bookingId = String(this.random.randint(1000000, 9999999));
        const transactionId = String(this.random.randint(10000000, 99999999));
        this.bookingRecord[bookingId] = {
          card_id: cardId,
          travel_date: date,
          travel_from: from,
          travel_to: to,
          travel_class: travelClass,
          travel_cost: cost,
          transaction_id: transactionId,
        };
        return { booking_id: bookingId, transaction_id: transactionId, booking_status: true, booking_history: {} };
      },
    },
    retrieve_invoice: {
      parameters: ["access_token", "booking_id?", "insurance_id?"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { error: "Invalid access token" };
        const bookingId = args.raw("booking_id");
        const booking = typeof bookingId === "string" && Object.hasOwn(this.bookingRecord, bookingId) ? this.bookingRecord[bookingId]! : undefined;
        if (booking === undefined) return { error: "Booking not found" };
        return {
          invoice: {
            booking_id: bookingId,
            travel_date: booking.travel_date,
            travel_from: booking.travel_from,
            travel_to: booking.travel_to,
            travel_class: booking.travel_class,
            travel_cost: booking.travel_cost,
            transaction_id: booking.transaction_id,
          },
        };
      },
    },
    get_booking_history: {
      parameters: ["access_token"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { error: "Invalid access token" };
        return { booking_history: structuredClone(this.bookingRecord) };
      },
    },
    list_all_airports: { parameters: [], run: () => [...AIRPORTS] },
    cancel_booking: {
      parameters: ["access_token", "booking_id"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { cancel_status: false, error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { cancel_status: false, error: "Invalid access token" };
        const bookingId = String(args.raw("booking_id"));
        const booking = Object.hasOwn(this.bookingRecord, bookingId) ? this.bookingRecord[bookingId]! : undefined;
        if (booking === undefined) return { cancel_status: false, error: "Booking not found" };
        const card = this.creditCardList[booking.card_id];
        if (card === undefined) throw new ApiExecutionError(`'${booking.card_id}'`);
        card.balance = (card.balance ?? 0) + booking.travel_cost;
        delete this.bookingRecord[bookingId];
        return { cancel_status: true };
      },
    },
    compute_exchange_rate: {
      parameters: ["base_currency", "target_currency", "value"],
      run: (args) => {
        const base = args.raw("base_currency");
        const target = args.raw("target_currency");
        const value = args.number("value");
        for (const [from, to, rate] of EXCHANGE_RATES) {
          if (base === from && target === to) return { exchanged_value: value * rate };
          if (base === to && target === from) return { exchanged_value: pythonRound(value / rate, 2) };
        }
        throw new ApiExecutionError("No available exchange rate for the given currencies.");
      },
    },
    verify_traveler_information: {
      parameters: ["first_name", "last_name", "date_of_birth", "passport_number"],
      run: (args) => {
        const firstName = args.raw("first_name");
        const lastName = args.raw("last_name");
        if (this.userFirstName !== firstName || this.userLastName !== lastName) {
          return {
            verification_status: false,
            verification_failure: `Cannot book flight information for another user.Expected ${String(this.userFirstName ?? "None")} ${String(this.userLastName ?? "None")}, got ${String(firstName)} ${String(lastName)}`,
          };
        }
        const birth = isValidDate(args.string("date_of_birth"));
        if (birth === undefined) return { verification_status: false, verification_failure: "Invalid date of birth format. Please use YYYY-MM-DD." };
        const today = this.today();
        const month = today.getMonth() + 1;
        const day = today.getDate();
        const age = today.getFullYear() - birth.year - (month < birth.month || (month === birth.month && day < birth.day) ? 1 : 0);
        if (age < 18) return { verification_status: false, verification_failure: "Traveler must be at least 18 years old." };
        if (!args.string("passport_number").startsWith("US")) {
          return { verification_status: false, verification_failure: "Passport must be issued by the United States." };
        }
        return { verification_status: true };
      },
    },
    set_budget_limit: {
      parameters: ["access_token", "budget_limit"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { error: "Invalid access token" };
        const raw = args.raw("budget_limit");
        const limit = typeof raw === "string" ? Number(raw) : args.number("budget_limit");
        if (Number.isNaN(limit)) throw new ApiExecutionError(`could not convert string to float: '${String(raw)}'`);
        this.budgetLimit = limit;
        return { budget_limit: limit };
      },
    },
    get_nearest_airport_by_city: {
      parameters: ["location"],
      run: (args) => {
        const location = String(args.raw("location"));
        return { nearest_airport: Object.hasOwn(AIRPORTS_BY_CITY, location) ? AIRPORTS_BY_CITY[location] : "Unknown" };
      },
    },
    purchase_insurance: {
      parameters: ["access_token", "insurance_type", "booking_id", "insurance_cost", "card_id"],
      run: (args) => {
        if (this.tokenExpiresIn === 0) return { insurance_status: false, error: "Token expired" };
        if (args.raw("access_token") !== this.accessToken) return { insurance_status: false, error: "Invalid access token" };
        const cost = args.number("insurance_cost");
        if (this.budgetLimit !== null && this.budgetLimit < cost) return { insurance_status: false, error: "Exceeded budget limit" };
        if (!Object.hasOwn(this.bookingRecord, String(args.raw("booking_id")))) return { insurance_status: false, error: "Booking not found" };
        const cardId = String(args.raw("card_id"));
        const card = Object.hasOwn(this.creditCardList, cardId) ? this.creditCardList[cardId]! : undefined;
        if (card === undefined) return { insurance_status: false, error: "Credit card not registered" };
        card.balance = (card.balance ?? 0) - cost;
        return { insurance_id: String(this.random.randint(100000000, 999999999)), insurance_status: true };
      },
    },
    contact_customer_support: {
      parameters: ["booking_id", "message"],
      run: (args) => {
        if (!Object.hasOwn(this.bookingRecord, String(args.raw("booking_id")))) return { error: "Booking not found" };
        return {
          customer_support_message: "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.",
        };
      },
    },
    get_all_credit_cards: { parameters: [], run: () => ({ credit_card_list: structuredClone(this.creditCardList) }) },
  };
}
