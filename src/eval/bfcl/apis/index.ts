import { BfclDataError } from "../errors.js";
import { GorillaFileSystem } from "./gorilla-file-system.js";
import { MathAPI } from "./math-api.js";
import { MessageAPI } from "./message-api.js";
import type { StatefulApi } from "./stateful-api.js";
import { TicketAPI } from "./ticket-api.js";
import { TradingBot } from "./trading-bot.js";
import { TravelAPI } from "./travel-api.js";
import { TwitterAPI } from "./twitter-api.js";
import { VehicleControlAPI } from "./vehicle-control-api.js";

export { ApiExecutionError, StatefulApi } from "./stateful-api.js";
export { GorillaFileSystem, MathAPI, MessageAPI, TicketAPI, TradingBot, TravelAPI, TwitterAPI, VehicleControlAPI };

const FACTORIES: Record<string, () => StatefulApi> = {
  GorillaFileSystem: () => new GorillaFileSystem(),
  MathAPI: () => new MathAPI(),
  MessageAPI: () => new MessageAPI(),
  TwitterAPI: () => new TwitterAPI(),
  TicketAPI: () => new TicketAPI(),
  TradingBot: () => new TradingBot(),
  TravelAPI: () => new TravelAPI(),
  VehicleControlAPI: () => new VehicleControlAPI(),
};

export const STATEFUL_API_CLASSES = Object.keys(FACTORIES);

/** A fresh instance of a BFCL stateful API class, loaded with its starting state. */
export function createStatefulApi(className: string, config: Record<string, unknown> = {}): StatefulApi {
  const factory = FACTORIES[className];
  if (factory === undefined) {
    throw new BfclDataError(`No stateful API is called "${className}": use one of ${STATEFUL_API_CLASSES.join(", ")}.`);
  }
  const api = factory();
  api.load(config);
  return api;
}
