import { PythonRandom } from "../python-random.js";
import { type MethodDefinition, StatefulApi, configValue } from "./stateful-api.js";

type Inbox = Array<Record<string, string>>;

const DEFAULT_USERS: Record<string, string> = { Alice: "USR001", Bob: "USR002", Catherine: "USR003", Daniel: "USR004" };
const DEFAULT_INBOX: Inbox = [{ USR002: "My name is Alice. I want to connect." }, { USR003: "Could you upload the file?" }, { USR004: "Could you upload the file?" }];

/** The one receiver → text entry of an inbox message. */
function entryOf(message: Record<string, string>): [string, string] {
  const entry = Object.entries(message)[0];
  return entry ?? ["", ""];
}

/** BFCL's MessageAPI: users, a login, and an inbox of sent messages. */
export class MessageAPI extends StatefulApi {
  readonly className = "MessageAPI";
  private random = new PythonRandom(200191);
  private generatedIds = new Set<number>();
  private userCount = 4;
  private userMap: Record<string, string> = {};
  private inbox: Inbox = [];
  private messageCount = 3;
  private currentUser: string | null = null;

  load(config: Record<string, unknown>): void {
    this.random = new PythonRandom(typeof config.random_seed === "number" ? config.random_seed : 200191);
    this.generatedIds = new Set(configValue<number[]>(config, "generated_ids", []));
    this.userCount = configValue(config, "user_count", 4);
    this.userMap = configValue(config, "user_map", DEFAULT_USERS);
    this.inbox = configValue(config, "inbox", DEFAULT_INBOX);
    this.messageCount = configValue(config, "message_count", 3);
    this.currentUser = configValue<string | null>(config, "current_user", null);
  }

  state(): Record<string, unknown> {
    return structuredClone({
      // A set compares without order.
      generated_ids: [...this.generatedIds].sort((a, b) => a - b),
      user_count: this.userCount,
      user_map: this.userMap,
      inbox: this.inbox,
      message_count: this.messageCount,
      current_user: this.currentUser,
    });
  }

  protected readonly methods: Record<string, MethodDefinition> = {
    list_users: { parameters: [], run: () => ({ user_list: Object.keys(this.userMap) }) },
    get_user_id: {
      parameters: ["user"],
      run: (args) => {
        const user = args.string("user");
        const id = this.userMap[user];
        return id === undefined || !Object.hasOwn(this.userMap, user) ? { error: `User '${user}' not found in the workspace.` } : { user_id: id };
      },
    },
    message_login: {
      parameters: ["user_id"],
      run: (args) => {
        const userId = args.string("user_id");
        if (!Object.values(this.userMap).includes(userId)) return { login_status: false, message: `User ID '${userId}' not found.` };
        this.currentUser = userId;
        return { login_status: true, message: `User '${userId}' logged in successfully.` };
      },
    },
    message_get_login_status: { parameters: [], run: () => ({ login_status: Boolean(this.currentUser) }) },
    send_message: {
      parameters: ["receiver_id", "message"],
      run: (args) => {
        if (!this.currentUser) return { error: "No user is currently logged in." };
        const receiver = args.string("receiver_id");
        const message = args.string("message");
        if (!Object.values(this.userMap).includes(receiver)) return { error: `Receiver ID '${receiver}' not found.` };
        const messageId = this.generateId();
        this.inbox.push({ [receiver]: message });
        this.messageCount += 1;
        return { sent_status: true, message_id: messageId, message: `Message sent to '${receiver}' successfully.` };
      },
    },
    delete_message: {
      parameters: ["receiver_id"],
      run: (args) => {
        if (!this.currentUser) return { error: "No user is currently logged in." };
        const receiver = args.string("receiver_id");
        for (let index = this.inbox.length - 1; index >= 0; index--) {
          const message = this.inbox[index]!;
          if (entryOf(message)[0] === receiver) {
            // Python's list.remove drops the first equal entry, which may sit before this one.
            const first = this.inbox.findIndex((candidate) => sameMessage(candidate, message));
            this.inbox.splice(first, 1);
            return { deleted_status: true, receiver_id: receiver, message: `Receiver ${receiver}'s latest message deleted successfully.` };
          }
        }
        return { error: `Receiver ID ${receiver} not found.` };
      },
    },
    view_messages_sent: {
      parameters: [],
      run: () => {
        if (!this.currentUser) return { error: "No user is currently logged in." };
        const sent: Record<string, string[]> = {};
        for (const message of this.inbox) {
          const [receiver, text] = entryOf(message);
          (sent[receiver] ??= []).push(text);
        }
        return { messages: sent };
      },
    },
    add_contact: {
      parameters: ["user_name"],
      run: (args) => {
        const name = args.string("user_name");
        if (Object.hasOwn(this.userMap, name)) return { error: `User name '${name}' already exists.` };
        this.userCount += 1;
        const id = `USR${String(this.userCount).padStart(3, "0")}`;
        if (Object.values(this.userMap).includes(id)) return { error: `User ID '${id}' already exists.` };
        this.userMap[name] = id;
        return { added_status: true, user_id: id, message: `Contact '${name}' added successfully.` };
      },
    },
    search_messages: {
      parameters: ["keyword"],
      run: (args) => {
        if (!this.currentUser) return { error: "No user is currently logged in." };
        const keyword = args.string("keyword").toLowerCase();
        const results = this.inbox
          .map(entryOf)
          .filter(([, text]) => text.toLowerCase().includes(keyword))
          .map(([receiver, text]) => ({ receiver_id: receiver, message: text }));
        return { results };
      },
    },
    get_message_stats: {
      parameters: [],
      run: () => {
        if (!this.currentUser) return { error: "No user is currently logged in." };
        const contacts = new Set(this.inbox.map((message) => entryOf(message)[0]));
        return { stats: { received_count: this.inbox.length, total_contacts: contacts.size } };
      },
    },
  };

  private generateId(): { new_id: number } {
    let id = this.random.randint(10000, 99999);
    while (this.generatedIds.has(id)) id = this.random.randint(10000, 99999);
    this.generatedIds.add(id);
    return { new_id: id };
  }
}

function sameMessage(a: Record<string, string>, b: Record<string, string>): boolean {
  const left = Object.entries(a);
  const right = Object.entries(b);
  return left.length === right.length && left.every(([key, value]) => b[key] === value);
}
