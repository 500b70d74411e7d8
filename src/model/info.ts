import { statSync } from "node:fs";
import { GgufFileType, readGgufFileInfo } from "node-llama-cpp";
import { ModelFileCorruptError, ModelFileMissingError, ModelFileTruncatedError } from "./errors.js";
import { expectedDataEnd } from "./integrity.js";
import { existsSync } from "node:fs";
import type { ChatFormatName } from "./chat-format.js";
import { dialectOfTemplate, selfTestDialect, templateSha256 } from "./dialect-self-test.js";

/** What `botpsy models info` shows: read from the GGUF header, no weights loaded. */
export interface ModelInfo {
  path: string;
  sizeBytes: number;
  name: string | undefined;
  architecture: string;
  /** Weights counted from the tensor shapes. */
  parameterCount: number;
  /** e.g. "Q4_1", "Q8_0", "BF16". */
  quantization: string;
  contextLength: number | undefined;
  chatTemplate: string | undefined;
  /** sha256 of the chat template, to compare a download against the template botpsy was proved on. */
  chatTemplateSha256: string | undefined;
  /** The format botpsy speaks to this model; "unknown" leaves it to node-llama-cpp's resolution at load time. */
  dialect: ChatFormatName | "unknown";
  /** One line: whether botpsy's rendering matches the file's own template on a fixed conversation. */
  selfTest: string;
  license: string | undefined;
}

export async function readModelInfo(path: string): Promise<ModelInfo> {
  if (!existsSync(path)) throw new ModelFileMissingError(path);
  let fileInfo: Awaited<ReturnType<typeof readGgufFileInfo>>;
  try {
    fileInfo = await readGgufFileInfo(path, { readTensorInfo: true });
  } catch (error) {
    throw new ModelFileCorruptError(path, error instanceof Error ? error.message : String(error), { cause: error });
  }
  // The header may be whole while the weights after it were cut short: the tensor table says where they must end.
  const dataEnd = fileInfo.splicedParts === 1 ? expectedDataEnd(fileInfo.tensorInfo ?? []) : 0;
  const fileSize = statSync(path).size;
  if (fileSize < dataEnd) throw new ModelFileTruncatedError(path, fileSize, dataEnd);
  const metadata = fileInfo.metadata as unknown as Record<string, Record<string, unknown> | undefined>;
  const general = metadata.general ?? {};
  const architecture = String(general.architecture ?? "unknown");
  const architectureMetadata = metadata[architecture] ?? {};
  const tokenizer = (metadata.tokenizer ?? {}) as { chat_template?: unknown };
  const parameterCount = (fileInfo.fullTensorInfo ?? fileInfo.tensorInfo ?? []).reduce(
    (sum, tensor) => sum + tensor.dimensions.reduce<number>((product, dimension) => product * Number(dimension), 1),
    0,
  );
  const chatTemplate = typeof tokenizer.chat_template === "string" ? tokenizer.chat_template : undefined;
  const fileType = typeof general.file_type === "number" ? general.file_type : undefined;
  return {
    path,
    sizeBytes: statSync(path).size,
    name: typeof general.name === "string" ? general.name : undefined,
    architecture,
    parameterCount,
    quantization: fileType !== undefined ? (GgufFileType[fileType] ?? `type ${fileType}`).replace(/^MOSTLY_/, "") : "unknown",
    contextLength: typeof architectureMetadata.context_length === "number" ? architectureMetadata.context_length : undefined,
    chatTemplate,
    chatTemplateSha256: chatTemplate !== undefined ? templateSha256(chatTemplate) : undefined,
    dialect: dialectOfTemplate(chatTemplate),
    selfTest: selfTestDialect(chatTemplate),
    license: typeof general.license === "string" ? general.license : undefined,
  };
}

export function formatParameterCount(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(2)}B`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`;
  return String(count);
}
