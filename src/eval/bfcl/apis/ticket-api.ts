import { type MethodDefinition, StatefulApi, configValue } from "./stateful-api.js";

type Ticket = Record<string, unknown> & { id: unknown; status: unknown; created_by?: unknown };

const EDITABLE_FIELDS = ["title", "description", "status", "priority"];

/** BFCL's TicketAPI: a support ticket queue behind a login. */
export class TicketAPI extends StatefulApi {
  readonly className = "TicketAPI";
  private ticketQueue: Ticket[] = [];
  private ticketCounter = 1;
  private currentUser: string | null = null;

  load(config: Record<string, unknown>): void {
    this.ticketQueue = configValue(config, "ticket_queue", []);
    this.ticketCounter = configValue(config, "ticket_counter", 1);
    this.currentUser = configValue<string | null>(config, "current_user", null);
  }

  state(): Record<string, unknown> {
    return structuredClone({ ticket_queue: this.ticketQueue, ticket_counter: this.ticketCounter, current_user: this.currentUser });
  }

  private findTicket(ticketId: unknown): Ticket | undefined {
    return this.ticketQueue.find((ticket) => ticket.id === ticketId);
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    create_ticket: {
      parameters: ["title", "description?", "priority?"],
      run: (args) => {
        if (!this.currentUser) return { error: "User not authenticated. Please log in to create a ticket." };
        const priority = args.optionalNumber("priority") ?? 1;
        if (priority < 1 || priority > 5) return { error: "Invalid priority. Priority must be between 1 and 5." };
        const ticket: Ticket = {
          id: this.ticketCounter,
          title: args.string("title"),
          description: args.optionalString("description") ?? "",
          status: "Open",
          priority,
          created_by: this.currentUser,
        };
        this.ticketQueue.push(ticket);
        this.ticketCounter += 1;
        return structuredClone(ticket);
      },
    },
    get_ticket: {
      parameters: ["ticket_id"],
      run: (args) => {
        const ticket = this.findTicket(args.raw("ticket_id"));
        return ticket === undefined ? { error: `Ticket with ID ${String(args.raw("ticket_id"))} not found.` } : structuredClone(ticket);
      },
    },
    close_ticket: {
      parameters: ["ticket_id"],
      run: (args) => {
        const id = String(args.raw("ticket_id"));
        const ticket = this.findTicket(args.raw("ticket_id"));
        if (ticket === undefined) return { error: `Ticket with ID ${id} not found.` };
        if (ticket.status === "Closed") return { error: `Ticket with ID ${id} is already closed.` };
        ticket.status = "Closed";
        return { status: `Ticket ${id} has been closed successfully.` };
      },
    },
    resolve_ticket: {
      parameters: ["ticket_id", "resolution"],
      run: (args) => {
        const id = String(args.raw("ticket_id"));
        const ticket = this.findTicket(args.raw("ticket_id"));
        if (ticket === undefined) return { error: `Ticket with ID ${id} not found.` };
        if (ticket.status === "Resolved") return { error: `Ticket with ID ${id} is already resolved.` };
        ticket.status = "Resolved";
        ticket.resolution = args.raw("resolution");
        return { status: `Ticket ${id} has been resolved successfully.` };
      },
    },
    edit_ticket: {
      parameters: ["ticket_id", "updates"],
      run: (args) => {
        const id = String(args.raw("ticket_id"));
        const ticket = this.findTicket(args.raw("ticket_id"));
        if (ticket === undefined) return { error: `Ticket with ID ${id} not found.` };
        const updates = args.record("updates");
        const invalid = Object.keys(updates).filter((key) => !EDITABLE_FIELDS.includes(key));
        if (invalid.length > 0) return { error: `Invalid fields for update: ${invalid.join(", ")}` };
        for (const [key, value] of Object.entries(updates)) if (value !== null && value !== undefined) ticket[key] = value;
        return { status: `Ticket ${id} has been updated successfully.` };
      },
    },
    ticket_login: {
      parameters: ["username", "password"],
      run: (args) => {
        const username = args.raw("username");
        const password = args.raw("password");
        if (username && password) {
          this.currentUser = String(username);
          return { success: true };
        }
        return { success: false };
      },
    },
    ticket_get_login_status: { parameters: [], run: () => ({ login_status: Boolean(this.currentUser) }) },
    logout: {
      parameters: [],
      run: () => {
        if (!this.currentUser) return { success: false };
        this.currentUser = null;
        return { success: true };
      },
    },
    get_user_tickets: {
      parameters: ["status?"],
      run: (args) => {
        if (!this.currentUser) return [{ error: "User not authenticated. Please log in to view tickets." }];
        const status = args.optionalString("status");
        let tickets = this.ticketQueue.filter((ticket) => ticket.created_by === this.currentUser);
        if (status) tickets = tickets.filter((ticket) => String(ticket.status).toLowerCase() === status.toLowerCase());
        return structuredClone(tickets);
      },
    },
  };
}
