import { z } from "zod";
import type { StoreTransaction } from "../../store/store.js";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { App } from "../app.js";
import { requireConnectivity } from "../device/connectivity.js";
import { resolveContact } from "../messages/contacts.js";
import { PERSONA } from "../persona.js";
import { capped, findByName, formatMoney, looseEnum, looseNumber, money } from "../shared.js";
import { addDays, daysBetween, localDate } from "../time.js";

export const FINANCE_APP = "finance";

export interface Account {
  id: string;
  name: string;
  kind: "checking" | "savings" | "credit";
  /** For a credit card: minus what is owed. */
  balance: number;
  /** Credit cards only. */
  creditLimit?: number;
  currency: string;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  /** ISO instant. */
  at: string;
  description: string;
  /** Negative: money out. */
  amount: number;
  category: string;
  counterparty?: string;
}

export interface Bill {
  id: string;
  payee: string;
  amount: number;
  /** YYYY-MM-DD */
  dueDate: string;
  category: string;
  paid: boolean;
  paidAt?: string;
  paidFrom?: string;
}

export interface Budget {
  category: string;
  monthlyLimit: number;
}

export const CATEGORIES = [
  "groceries",
  "dining",
  "transport",
  "fuel",
  "utilities",
  "rent",
  "shopping",
  "entertainment",
  "health",
  "travel",
  "income",
  "transfer",
  "other",
] as const;
export type Category = (typeof CATEGORIES)[number];

const accounts = (tx: StoreTransaction) => tx.collection<Account>(FINANCE_APP, "accounts");
const ledger = (tx: StoreTransaction) => tx.collection<LedgerEntry>(FINANCE_APP, "transactions");
const bills = (tx: StoreTransaction) => tx.collection<Bill>(FINANCE_APP, "bills");
const budgets = (tx: StoreTransaction) => tx.collection<Budget>(FINANCE_APP, "budgets");

/** Money that can leave the account now. */
export function available(account: Account): number {
  return money(account.kind === "credit" ? (account.creditLimit ?? 0) + account.balance : account.balance);
}

const ACCOUNT_WORDS: Record<string, string> = {
  checking: "checking",
  current: "checking",
  debit: "checking",
  "debit card": "checking",
  bank: "checking",
  "bank account": "checking",
  everyday: "checking",
  savings: "savings",
  saving: "savings",
  "savings account": "savings",
  visa: "visa",
  card: "visa",
  "credit card": "visa",
  credit: "visa",
};

export function resolveAccount(tx: StoreTransaction, query: string, field = "account"): Account {
  const all = accounts(tx).all();
  if (all.length === 0) {
    throw new ToolError("no_accounts", "No bank accounts or cards are set up in the finance app. Add one there, then retry.");
  }
  const alias = ACCOUNT_WORDS[query.trim().toLowerCase()];
  const byAlias = alias === undefined ? undefined : all.find((account) => account.id === alias);
  if (byAlias !== undefined) return byAlias;
  try {
    return findByName(all, query, { what: "account", id: (account) => account.id, name: (account) => account.name, listTool: "get_account_balances" });
  } catch (error) {
    if (error instanceof ToolError) {
      throw new ToolError(error.code, `${field}: ${error.message} Accounts: ${all.map((account) => account.id).join(", ")}.`);
    }
    throw error;
  }
}

/** The account a purchase is paid from: the card by default; savings cannot pay shops. */
export function resolvePaymentMethod(tx: StoreTransaction, method: string | undefined): Account {
  const account = resolveAccount(tx, method ?? "visa", "payment_method");
  if (account.kind === "savings") {
    throw new ToolError(
      "payment_method_unusable",
      `The savings account cannot pay purchases. Pay with "visa" or "checking", or move money first with transfer_money.`,
    );
  }
  return account;
}

export interface ChargeRequest {
  account: Account;
  amount: number;
  description: string;
  category: string;
  at: Date;
  counterparty?: string;
}

/** Take money from an account, recording the transaction; refuses when funds are short. */
export function charge(tx: StoreTransaction, request: ChargeRequest): LedgerEntry {
  const amount = money(request.amount);
  if (!(amount > 0)) throw new ToolError("invalid_amount", `The amount must be more than 0; got ${request.amount}.`);
  const account = accounts(tx).get(request.account.id) ?? request.account;
  const free = available(account);
  if (amount > free + 1e-9) {
    throw new ToolError(
      "insufficient_funds",
      `${account.name} has only ${formatMoney(free, account.currency)} available, less than ${formatMoney(amount, account.currency)}. ` +
        `Use another account or card, or move money into it with transfer_money, then retry.`,
      { available: free },
    );
  }
  accounts(tx).put(account.id, { ...account, balance: money(account.balance - amount) });
  return record(tx, { accountId: account.id, amount: -amount, description: request.description, category: request.category, at: request.at, counterparty: request.counterparty });
}

/** Give money back to an account (refunds, returns). */
export function credit(tx: StoreTransaction, request: Omit<ChargeRequest, "account"> & { accountId: string }): LedgerEntry {
  const amount = money(request.amount);
  const account = accounts(tx).get(request.accountId);
  if (account === undefined) throw new ToolError("account_missing", `Account ${request.accountId} no longer exists; the refund cannot be paid. Contact support.`);
  accounts(tx).put(account.id, { ...account, balance: money(account.balance + amount) });
  return record(tx, { accountId: account.id, amount, description: request.description, category: request.category, at: request.at, counterparty: request.counterparty });
}

function record(
  tx: StoreTransaction,
  entry: { accountId: string; amount: number; description: string; category: string; at: Date; counterparty?: string },
): LedgerEntry {
  const collection = ledger(tx);
  const id = collection.nextId("txn");
  const value: LedgerEntry = {
    id,
    accountId: entry.accountId,
    at: entry.at.toISOString(),
    description: entry.description,
    amount: money(entry.amount),
    category: entry.category,
    ...(entry.counterparty === undefined ? {} : { counterparty: entry.counterparty }),
  };
  collection.put(id, value);
  return value;
}

const accountResult = (account: Account) => ({
  id: account.id,
  name: account.name,
  kind: account.kind,
  balance: account.balance,
  available: available(account),
  currency: account.currency,
  ...(account.kind === "credit" ? { owed: money(-account.balance), credit_limit: account.creditLimit } : {}),
});

const entryResult = (entry: LedgerEntry, timeZone: string) => ({
  id: entry.id,
  date: localDate(new Date(entry.at), timeZone),
  account: entry.accountId,
  description: entry.description,
  amount: entry.amount,
  category: entry.category,
});

function monthStart(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

function spentThisMonth(tx: StoreTransaction, timeZone: string, today: string): Map<string, number> {
  const start = monthStart(today);
  const spent = new Map<string, number>();
  for (const entry of ledger(tx).all()) {
    if (entry.amount >= 0 || entry.category === "transfer") continue;
    const day = localDate(new Date(entry.at), timeZone);
    if (day < start || day > today) continue;
    spent.set(entry.category, money((spent.get(entry.category) ?? 0) - entry.amount));
  }
  return spent;
}

const getAccountBalances = defineTool({
  name: "get_account_balances",
  description: "Show the balance of each bank account and card.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const all = accounts(context.store).all();
    if (all.length === 0) throw new ToolError("no_accounts", "No bank accounts or cards are set up in the finance app.");
    return { accounts: all.map(accountResult) };
  },
});

const listTransactions = defineTool({
  name: "list_transactions",
  description: "List recent bank and card transactions, newest first; filter by account, category or days back.",
  input: z.object({
    account: z.string().optional().describe('An account, e.g. "checking" or "visa"'),
    category: looseEnum(CATEGORIES).optional().describe('A category, e.g. "groceries"'),
    days: looseNumber(z.number().int().min(1).max(365)).optional().describe("How many days back, e.g. 7 (default 30)"),
  }),
  risk: "read",
  run: ({ account, category, days }, context) => {
    const accountId = account === undefined ? undefined : resolveAccount(context.store, account).id;
    const today = localDate(context.now(), context.timeZone);
    const since = addDays(today, -(days ?? 30));
    const found = ledger(context.store)
      .all()
      .filter(
        (entry) =>
          (accountId === undefined || entry.accountId === accountId) &&
          (category === undefined || entry.category === category) &&
          localDate(new Date(entry.at), context.timeZone) > since,
      )
      .sort((a, b) => b.at.localeCompare(a.at));
    const list = capped(found, 12);
    return {
      since,
      transactions: list.items.map((entry) => entryResult(entry, context.timeZone)),
      more: list.more,
      total_out: money(found.filter((entry) => entry.amount < 0).reduce((sum, entry) => sum - entry.amount, 0)),
      total_in: money(found.filter((entry) => entry.amount > 0).reduce((sum, entry) => sum + entry.amount, 0)),
    };
  },
});

/** Largest single transfer the bank lets through the app. */
const TRANSFER_LIMIT = 5000;

const transferMoney = defineTool({
  name: "transfer_money",
  description: "Move money between your own accounts, or send money to a contact.",
  input: z.object({
    amount: looseNumber(z.number().positive()).describe("Amount in EUR, e.g. 50"),
    to: z.string().describe('Your account ("savings") or a contact ("Maria")'),
    from_account: z.string().optional().describe('Account to take it from, e.g. "checking" (default)'),
    note: z.string().max(140).optional().describe('A note, e.g. "dinner"'),
  }),
  risk: "spend",
  run: ({ amount, to, from_account, note }, context) => {
    const from = resolveAccount(context.store, from_account ?? "checking", "from_account");
    if (amount > TRANSFER_LIMIT) {
      throw new ToolError("over_transfer_limit", `${formatMoney(amount)} is over the limit of ${formatMoney(TRANSFER_LIMIT)} per transfer. Split it or use the bank's website.`);
    }
    const wantedAccount = to.trim().toLowerCase();
    const own =
      ACCOUNT_WORDS[wantedAccount] !== undefined || accounts(context.store).all().some((account) => account.name.toLowerCase() === wantedAccount || account.id === wantedAccount)
        ? resolveAccount(context.store, to, "to")
        : undefined;
    const at = context.now();
    if (own !== undefined) {
      if (own.id === from.id) throw new ToolError("same_account", `from_account and to are both ${from.name}. Choose two different accounts.`);
      const out = charge(context.store, { account: from, amount, description: `Transfer to ${own.name}${note ? `: ${note}` : ""}`, category: "transfer", at });
      credit(context.store, { accountId: own.id, amount, description: `Transfer from ${from.name}${note ? `: ${note}` : ""}`, category: "transfer", at });
      return { transferred: money(amount), from: from.name, to: own.name, transaction: out.id, accounts: accounts(context.store).all().map(accountResult) };
    }
    let contact: { name: string };
    try {
      contact = resolveContact(context.store, to, "to");
    } catch (error) {
      if (error instanceof ToolError && error.code === "unknown_contact") {
        throw new ToolError(
          "unknown_recipient",
          `"${to}" is neither one of your accounts (${accounts(context.store).all().map((account) => account.id).join(", ")}) nor a contact. Use a contact's name such as "Maria", or find one with find_contact.`,
        );
      }
      throw error;
    }
    if (from.kind === "credit") throw new ToolError("payment_method_unusable", "Money cannot be sent to people from a credit card. Use from_account=\"checking\".");
    requireConnectivity(context.store, `send money to ${contact.name}`);
    const out = charge(context.store, { account: from, amount, description: `Sent to ${contact.name}${note ? `: ${note}` : ""}`, category: "transfer", at, counterparty: contact.name });
    return { transferred: money(amount), from: from.name, to: contact.name, transaction: out.id, balance_after: accounts(context.store).get(from.id)?.balance };
  },
});

const billResult = (bill: Bill, today: string) => ({
  id: bill.id,
  payee: bill.payee,
  amount: bill.amount,
  due_date: bill.dueDate,
  status: bill.paid ? "paid" : bill.dueDate < today ? "overdue" : `due in ${daysBetween(today, bill.dueDate)} days`,
});

const listBills = defineTool({
  name: "list_bills",
  description: "List bills to pay, with amounts and due dates (paid ones too if asked).",
  input: z.object({ include_paid: z.boolean().optional().describe("true to include paid bills") }),
  risk: "read",
  run: ({ include_paid }, context) => {
    const today = localDate(context.now(), context.timeZone);
    const found = bills(context.store)
      .all()
      .filter((bill) => include_paid === true || !bill.paid)
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate));
    return { bills: found.map((bill) => billResult(bill, today)), unpaid_total: money(found.filter((bill) => !bill.paid).reduce((sum, bill) => sum + bill.amount, 0)) };
  },
});

const payBill = defineTool({
  name: "pay_bill",
  description: "Pay a bill by its payee or id, from checking (default) or another account.",
  input: z.object({
    bill: z.string().describe('Payee or bill id, e.g. "EDP" or "bill-1"'),
    account: z.string().optional().describe('Account to pay from, e.g. "checking" (default) or "visa"'),
  }),
  risk: "spend",
  run: ({ bill: query, account }, context) => {
    const all = bills(context.store).all();
    const unpaid = all.filter((bill) => !bill.paid);
    const target = findByName(unpaid.length > 0 ? unpaid : all, query, { what: "unpaid bill", id: (bill) => bill.id, name: (bill) => bill.payee, listTool: "list_bills" });
    if (target.paid) throw new ToolError("already_paid", `The ${target.payee} bill was already paid on ${target.paidAt?.slice(0, 10)}. Nothing to do.`);
    const from = resolvePaymentMethod(context.store, account ?? "checking");
    const at = context.now();
    const entry = charge(context.store, { account: from, amount: target.amount, description: `Bill: ${target.payee}`, category: target.category, at, counterparty: target.payee });
    bills(context.store).put(target.id, { ...target, paid: true, paidAt: at.toISOString(), paidFrom: from.id });
    return { paid: target.payee, amount: target.amount, from: from.name, transaction: entry.id, balance_after: accounts(context.store).get(from.id)?.balance };
  },
});

const setBudget = defineTool({
  name: "set_budget",
  description: "Set the monthly spending limit for a category, e.g. groceries 400.",
  input: z.object({
    category: looseEnum(CATEGORIES).describe('Category, e.g. "groceries" or "dining"'),
    monthly_limit: looseNumber(z.number().positive().max(100_000)).describe("Limit in EUR per month, e.g. 400"),
  }),
  risk: "write",
  run: ({ category, monthly_limit }, context) => {
    if (category === "income" || category === "transfer") {
      throw new ToolError("invalid_argument", `A budget limits spending; "${category}" is not spending. Choose a category such as groceries or dining.`);
    }
    const previous = budgets(context.store).get(category);
    budgets(context.store).put(category, { category, monthlyLimit: money(monthly_limit) });
    const spent = spentThisMonth(context.store, context.timeZone, localDate(context.now(), context.timeZone)).get(category) ?? 0;
    return { category, monthly_limit: money(monthly_limit), previous_limit: previous?.monthlyLimit, spent_this_month: spent, left: money(monthly_limit - spent) };
  },
});

const getBudgetStatus = defineTool({
  name: "get_budget_status",
  description: "How much of each monthly budget is spent this month, and what is left.",
  input: z.object({ category: looseEnum(CATEGORIES).optional().describe('One category, e.g. "dining"') }),
  risk: "read",
  run: ({ category }, context) => {
    const today = localDate(context.now(), context.timeZone);
    const spent = spentThisMonth(context.store, context.timeZone, today);
    const all = budgets(context.store).all().filter((budget) => category === undefined || budget.category === category);
    if (all.length === 0) {
      throw new ToolError("no_budget", `No budget is set${category ? ` for ${category}` : ""}. Set one with set_budget(category, monthly_limit).`);
    }
    return {
      month: today.slice(0, 7),
      budgets: all.map((budget) => {
        const used = spent.get(budget.category) ?? 0;
        return { category: budget.category, monthly_limit: budget.monthlyLimit, spent: used, left: money(budget.monthlyLimit - used), over: used > budget.monthlyLimit };
      }),
    };
  },
});

export const financeApp: App = {
  name: FINANCE_APP,
  group: "errands",
  title: "Finance",
  description: "Bank accounts and a card: balances, transactions, transfers, bills and budgets.",
  tools: [getAccountBalances, listTransactions, transferMoney, listBills, payBill, setBudget, getBudgetStatus],
  seed(tx, environment) {
    const now = environment.now();
    const today = localDate(now, environment.timeZone);
    const seedAccounts: Account[] = [
      { id: "checking", name: "Everyday Checking", kind: "checking", balance: 2450.75, currency: PERSONA.currency },
      { id: "savings", name: "Savings", kind: "savings", balance: 8200, currency: PERSONA.currency },
      { id: "visa", name: "Visa Card ending 4242", kind: "credit", balance: -312.4, creditLimit: 3000, currency: PERSONA.currency },
    ];
    for (const account of seedAccounts) accounts(tx).put(account.id, account);
    const history: [number, string, string, number, Category, string?][] = [
      [-28, "checking", "Salary — Northwind Labs", 3200, "income"],
      [-27, "checking", "Rent December", -950, "rent", "Landlord"],
      [-25, "visa", "Pingo Doce", -54.3, "groceries"],
      [-23, "visa", "Uber", -12.8, "transport"],
      [-22, "checking", "EPAL water", -21.4, "utilities"],
      [-20, "visa", "Time Out Market", -36.5, "dining"],
      [-18, "visa", "Continente", -82.15, "groceries"],
      [-16, "visa", "Cinema City", -17, "entertainment"],
      [-15, "checking", "Galp fuel", -61.2, "fuel"],
      [-13, "visa", "Farmácia Estácio", -14.9, "health"],
      [-12, "visa", "Zara", -59.95, "shopping"],
      [-10, "visa", "Pingo Doce", -47.6, "groceries"],
      [-9, "visa", "Café A Brasileira", -8.4, "dining"],
      [-8, "checking", "Navegante metro pass", -40, "transport"],
      [-7, "visa", "Spotify", -10.99, "entertainment"],
      [-5, "visa", "Restaurante Ramiro", -64, "dining"],
      [-4, "visa", "Pingo Doce", -38.2, "groceries"],
      [-3, "checking", "Sent to Maria Lopez: concert tickets", -45, "transfer", "Maria Lopez"],
      [-2, "visa", "Fitness Hub", -35, "health"],
      [-1, "visa", "Continente", -29.75, "groceries"],
      [0, "visa", "Pastéis de Belém", -6.3, "dining"],
    ];
    for (const [days, accountId, description, amount, category, counterparty] of history) {
      const at = new Date(now.getTime() + days * 86_400_000 - 3 * 3_600_000);
      record(tx, { accountId, amount, description, category, at, ...(counterparty === undefined ? {} : { counterparty }) });
    }
    const seedBills: Omit<Bill, "id">[] = [
      { payee: "Vodafone mobile", amount: 18.5, dueDate: addDays(today, 3), category: "utilities", paid: false },
      { payee: "EDP electricity", amount: 64.3, dueDate: addDays(today, 5), category: "utilities", paid: false },
      { payee: "MEO internet", amount: 39.99, dueDate: addDays(today, 10), category: "utilities", paid: false },
      { payee: "Landlord rent", amount: 950, dueDate: addDays(today, 26), category: "rent", paid: false },
      { payee: "EPAL water", amount: 21.4, dueDate: addDays(today, -22), category: "utilities", paid: true, paidAt: new Date(now.getTime() - 22 * 86_400_000).toISOString(), paidFrom: "checking" },
    ];
    for (const bill of seedBills) {
      const id = bills(tx).nextId("bill");
      bills(tx).put(id, { id, ...bill });
    }
    for (const [category, monthlyLimit] of [
      ["groceries", 400],
      ["dining", 200],
      ["transport", 80],
      ["entertainment", 100],
      ["shopping", 250],
    ] as const) {
      budgets(tx).put(category, { category, monthlyLimit });
    }
  },
  view(tx, environment) {
    const today = localDate(environment.now(), environment.timeZone);
    const allAccounts = accounts(tx).all();
    const recent = ledger(tx)
      .all()
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, 8);
    const unpaid = bills(tx)
      .all()
      .filter((bill) => !bill.paid)
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate));
    const spent = spentThisMonth(tx, environment.timeZone, today);
    const allBudgets = budgets(tx).all();
    const text = [
      "Accounts:",
      ...allAccounts.map((account) => `  ${account.name.padEnd(24)} ${formatMoney(account.balance, account.currency).padStart(14)}   available ${formatMoney(available(account), account.currency)}`),
      "Recent transactions:",
      ...recent.map((entry) => `  ${localDate(new Date(entry.at), environment.timeZone)}  ${entry.description.padEnd(36)} ${entry.amount.toFixed(2).padStart(10)}  ${entry.category}`),
      "Bills to pay:",
      ...(unpaid.length === 0 ? ["  none"] : unpaid.map((bill) => `  ${bill.dueDate}  ${bill.payee.padEnd(20)} ${bill.amount.toFixed(2).padStart(9)}`)),
      `Budgets for ${today.slice(0, 7)}:`,
      ...allBudgets.map((budget) => `  ${budget.category.padEnd(14)} ${(spent.get(budget.category) ?? 0).toFixed(2).padStart(8)} of ${budget.monthlyLimit.toFixed(2)}`),
    ].join("\n");
    return {
      text,
      data: {
        accounts: allAccounts.map(accountResult),
        recentTransactions: recent.map((entry) => entryResult(entry, environment.timeZone)),
        bills: unpaid.map((bill) => billResult(bill, today)),
        budgets: allBudgets.map((budget) => ({ ...budget, spent: spent.get(budget.category) ?? 0 })),
      },
    };
  },
};
