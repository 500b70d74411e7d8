"""LoRA fine-tuning of a GGUF chat model for botpsy.

Run by `botpsy tune train` inside the environment it creates; reads the token
sequences botpsy rendered (prompt + completion, loss on the completion only),
trains a LoRA adapter with peft on CPU or GPU, checkpoints so a killed run
resumes where it stopped, and measures a held-out slice (loss, call accuracy).
"""

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import sys
import time


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-gguf", required=True)
    parser.add_argument("--float-dir", required=True, help="cache of the dequantised model (created when missing)")
    parser.add_argument("--data", required=True, help="JSON lines: {example, tokens, completion_start}")
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--epochs", type=float, default=0)
    parser.add_argument("--max-minutes", type=float, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--learning-rate", type=float, default=2e-4)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--held-out", type=float, default=0.1)
    parser.add_argument("--checkpoint-every", type=int, default=5)
    parser.add_argument("--merge-dir", default="", help="also write the merged float model here")
    parser.add_argument("--device", default="auto", help="cpu, cuda, or auto (cuda when torch sees a GPU)")
    parser.add_argument("--init-adapter", default="", help="a GGUF LoRA adapter (llama.cpp's format) to start from instead of a fresh one; its rank and alpha are kept")
    parser.add_argument("--save-each-epoch", action="store_true", help="also keep the adapter as it is at the end of each epoch (adapter-hf-epoch-N)")
    return parser.parse_args()


def write_whole(directory, write):
    """Fill `directory` through `write(folder)` in a side folder, renamed into place only when whole, so a kill never leaves half of it."""
    partial = directory + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    write(partial)
    shutil.rmtree(directory, ignore_errors=True)
    os.replace(partial, directory)


def load_float_model(arguments, torch, transformers):
    float_dir = arguments.float_dir
    if not os.path.exists(os.path.join(float_dir, "config.json")):
        started = time.time()
        directory, file_name = os.path.split(os.path.abspath(arguments.base_gguf))
        log(f"dequantising {file_name} into {float_dir} (once per base model)")
        model = transformers.AutoModelForCausalLM.from_pretrained(directory, gguf_file=file_name, dtype=torch.float32)
        tokenizer = transformers.AutoTokenizer.from_pretrained(directory, gguf_file=file_name)
        # A model read from GGUF carries its quantizer; save_pretrained refuses it until it is cleared.
        model.hf_quantizer = None
        if hasattr(model, "is_quantized"):
            model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            delattr(model.config, "quantization_config")

        def write(folder):
            model.save_pretrained(folder)
            tokenizer.save_pretrained(folder)

        write_whole(float_dir, write)
        log(f"dequantised in {time.time() - started:.0f} s")
    return transformers.AutoModelForCausalLM.from_pretrained(float_dir, dtype=torch.float32)


def read_sequences(path, max_tokens):
    sequences, too_long = [], 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            if len(record["tokens"]) > max_tokens:
                too_long += 1
                continue
            sequences.append(record)
    return sequences, too_long


def split_held_out(sequences, fraction, seed):
    examples = sorted({sequence["example"] for sequence in sequences})
    random.Random(seed).shuffle(examples)
    count = int(round(len(examples) * fraction)) if fraction > 0 else 0
    if fraction > 0 and count == 0 and len(examples) >= 4:
        count = 1
    held = set(examples[:count])
    return [s for s in sequences if s["example"] not in held], [s for s in sequences if s["example"] in held]


def choose_device(torch, wanted):
    if wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if wanted == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no GPU here (torch.cuda.is_available() is False); use --device cpu")
    if wanted not in ("cpu", "cuda"):
        raise SystemExit(f"--device {wanted}: use cpu, cuda or auto")
    return wanted


def gguf_field(reader, key):
    field = reader.fields.get(key)
    return None if field is None else field.contents()


def unpermute_rows(weights, heads):
    """Undoes llama.cpp's converter's reordering of q/k rows for its rotary layout (LlamaModel.permute) on a LoRA B matrix."""
    rows = weights.shape[0]
    return weights.reshape(heads, rows // heads // 2, 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def read_gguf_adapter(path, torch):
    """A GGUF LoRA adapter as read: its architecture, its alpha and its tensors by GGUF name (`blk.0.attn_q.weight.lora_a`), in float32.

    `load_gguf_adapter_into` places them in the peft modules.
    """
    import gguf

    reader = gguf.GGUFReader(path)
    if gguf_field(reader, "general.type") != "adapter" or gguf_field(reader, "adapter.type") != "lora":
        raise SystemExit(f"--init-adapter {path}: not a LoRA adapter GGUF (general.type/adapter.type)")
    architecture = gguf_field(reader, "general.architecture")
    alpha = gguf_field(reader, "adapter.lora.alpha")
    by_name = {v: k for k, v in gguf.MODEL_ARCH_NAMES.items()}
    if architecture not in by_name or alpha is None:
        raise SystemExit(f"--init-adapter {path}: architecture {architecture!r} or alpha missing or unknown")
    tensors = {tensor.name: torch.tensor(tensor.data.astype("float32")) for tensor in reader.tensors}
    return {"architecture": architecture, "arch": by_name[architecture], "alpha": float(alpha), "tensors": tensors}


def load_gguf_adapter_into(model, adapter, model_config, torch):
    """Copies the adapter's A and B into the peft model's LoRA weights; every tensor of the file must find its place and every LoRA module must be filled.

    Names go through gguf-py's own map between Hugging Face and GGUF tensor names;
    for the llama architecture the converter reorders q/k rows, which is undone here.
    """
    import gguf

    name_map = gguf.get_tensor_name_map(adapter["arch"], model_config.num_hidden_layers)
    unused = set(adapter["tensors"])
    filled, missing = 0, []
    for name, module in model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in module.lora_A:
            continue
        hf_name = name.split("base_model.model.", 1)[-1]
        gguf_name = name_map.get_name(hf_name + ".weight", try_suffixes=(".weight",))
        a_name, b_name = f"{gguf_name}.lora_a", f"{gguf_name}.lora_b"
        if gguf_name is None or a_name not in adapter["tensors"] or b_name not in adapter["tensors"]:
            missing.append(hf_name)
            continue
        a, b = adapter["tensors"][a_name], adapter["tensors"][b_name]
        if adapter["architecture"] == "llama" and hf_name.endswith(("q_proj", "k_proj")):
            heads = model_config.num_attention_heads if hf_name.endswith("q_proj") else model_config.num_key_value_heads
            b = unpermute_rows(b, heads)
        target_a, target_b = module.lora_A["default"].weight, module.lora_B["default"].weight
        if tuple(a.shape) != tuple(target_a.shape) or tuple(b.shape) != tuple(target_b.shape):
            raise SystemExit(f"--init-adapter: {a_name} has shape {tuple(a.shape)}/{tuple(b.shape)} where this base's {hf_name} takes {tuple(target_a.shape)}/{tuple(target_b.shape)}")
        with torch.no_grad():
            target_a.copy_(a)
            target_b.copy_(b)
        unused.discard(a_name)
        unused.discard(b_name)
        filled += 1
    if missing or unused:
        raise SystemExit(f"--init-adapter: the adapter does not fit this base ({len(missing)} LoRA modules without weights, e.g. {missing[:2]}; {len(unused)} tensors without a module, e.g. {sorted(unused)[:2]})")
    return filled


def sequence_loss(model, torch, sequence):
    tokens = torch.tensor([sequence["tokens"]], dtype=torch.long, device=model.device)
    labels = tokens.clone()
    labels[0, : sequence["completion_start"]] = -100
    return model(input_ids=tokens, labels=labels).loss


def held_out_metrics(model, torch, sequences, limit=16):
    if not sequences:
        return {"loss": None, "call_accuracy": None, "calls": 0}
    model.eval()
    losses, correct, calls = [], 0, 0
    with torch.no_grad():
        for sequence in sequences:
            losses.append(float(sequence_loss(model, torch, sequence)))
        call_sequences = [s for s in sequences if s.get("is_call")][:limit]
        for sequence in call_sequences:
            start = sequence["completion_start"]
            target = sequence["tokens"][start:]
            prompt = torch.tensor([sequence["tokens"][:start]], dtype=torch.long, device=model.device)
            output = model.generate(prompt, max_new_tokens=len(target), do_sample=False, pad_token_id=0)
            written = output[0, start:].tolist()
            calls += 1
            correct += int(written == target)
    model.train()
    return {"loss": sum(losses) / len(losses), "call_accuracy": (correct / calls) if calls else None, "calls": calls}


def fit_loss(model, torch, sequences, limit=16):
    """Mean loss on the first training sequences: whether the run learns what it is shown."""
    model.eval()
    with torch.no_grad():
        losses = [float(sequence_loss(model, torch, sequence)) for sequence in sequences[:limit]]
    model.train()
    return sum(losses) / len(losses) if losses else None


def save_checkpoint(model, optimizer, torch, directory, state):
    def write(folder):
        model.save_pretrained(folder)
        torch.save(optimizer.state_dict(), os.path.join(folder, "optimizer.pt"))
        with open(os.path.join(folder, "state.json"), "w", encoding="utf-8") as handle:
            json.dump(state, handle)

    write_whole(directory, write)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def format_duration(seconds):
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{(seconds % 3600) // 60:02d}:{seconds % 60:02d}"


def main():
    arguments = parse_arguments()
    import torch
    import transformers
    import peft

    if arguments.threads > 0:
        torch.set_num_threads(arguments.threads)
    random.seed(arguments.seed)
    torch.manual_seed(arguments.seed)
    transformers.set_seed(arguments.seed)
    os.makedirs(arguments.out, exist_ok=True)

    sequences, too_long = read_sequences(arguments.data, arguments.max_tokens)
    if not sequences:
        log("no training sequence fits --max-tokens; build data with shorter prompts")
        return 3
    training, held_out = split_held_out(sequences, arguments.held_out, arguments.seed)
    if not training:
        log("every sequence went to the held-out slice; give more data or a smaller held-out fraction")
        return 3

    device = choose_device(torch, arguments.device)
    base = load_float_model(arguments, torch, transformers).to(device)
    log(f"training on {device}" + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else ""))
    initial = read_gguf_adapter(arguments.init_adapter, torch) if arguments.init_adapter else None
    rank, alpha = arguments.rank, 2 * arguments.rank
    if initial is not None:
        ranks = {tuple(t.shape)[0] for n, t in initial["tensors"].items() if n.endswith(".lora_a")}
        if len(ranks) != 1:
            raise SystemExit(f"--init-adapter: its LoRA matrices have several ranks ({sorted(ranks)}); botpsy trains one rank on every projection")
        rank, alpha = ranks.pop(), initial["alpha"]
    config = peft.LoraConfig(
        r=rank,
        lora_alpha=alpha,
        lora_dropout=0.0,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        task_type="CAUSAL_LM",
    )
    checkpoint_dir = os.path.join(arguments.out, "checkpoint")
    # What a checkpoint is valid for: the same sequences, in the same split, with the same settings.
    plan = hashlib.sha256(json.dumps({
        "training": [[s["example"], len(s["tokens"])] for s in training],
        "held_out": [s["example"] for s in held_out],
        "seed": arguments.seed, "rank": rank, "learning_rate": arguments.learning_rate,
        **({"init_adapter": file_sha256(arguments.init_adapter)} if arguments.init_adapter else {}),
    }).encode()).hexdigest()
    resume_state = None
    if os.path.exists(os.path.join(checkpoint_dir, "state.json")):
        with open(os.path.join(checkpoint_dir, "state.json"), encoding="utf-8") as handle:
            resume_state = json.load(handle)
        if resume_state.get("plan") != plan:
            log("the data or settings changed since the checkpoint: starting afresh")
            resume_state = None
    if resume_state is not None:
        model = peft.PeftModel.from_pretrained(base, checkpoint_dir, is_trainable=True).to(device)
    else:
        model = peft.get_peft_model(base, config)
        if initial is not None:
            filled = load_gguf_adapter_into(model, initial, base.config, torch)
            log(f"started from {os.path.basename(arguments.init_adapter)}: {filled} LoRA modules, rank {rank}, alpha {alpha:g}")
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=arguments.learning_rate, weight_decay=0.0)

    steps_per_epoch = len(training)
    total_steps = arguments.steps if arguments.steps > 0 else max(1, int(math.ceil((arguments.epochs or 1) * steps_per_epoch)))
    step = 0
    history = []
    before = None
    fit_before = None
    if resume_state is not None:
        optimizer.load_state_dict(torch.load(os.path.join(checkpoint_dir, "optimizer.pt"), map_location=device))
        step = resume_state["step"]
        history = resume_state["history"]
        before = resume_state["held_out_before"]
        fit_before = resume_state.get("fit_loss_before")
        torch.set_rng_state(torch.tensor(resume_state["torch_rng"], dtype=torch.uint8))
        log(f"resuming from step {step}/{total_steps}")
    else:
        before = held_out_metrics(model, torch, held_out)
        fit_before = fit_loss(model, torch, training)
        log(f"held-out before training: {json.dumps(before)}; training-set loss {fit_before:.4f}")

    log(f"{len(training)} training sequences, {len(held_out)} held out, {too_long} longer than {arguments.max_tokens} tokens left out; {total_steps} steps")
    started = time.time()
    deadline = started + arguments.max_minutes * 60 if arguments.max_minutes > 0 else None
    done_steps_here = 0
    stopped_for_time = False
    while step < total_steps:
        epoch, position = divmod(step, steps_per_epoch)
        order = list(range(steps_per_epoch))
        random.Random(arguments.seed * 1000 + epoch).shuffle(order)
        sequence = training[order[position]]
        loss = sequence_loss(model, torch, sequence)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        done_steps_here += 1
        history.append({"step": step, "loss": loss.item(), "example": sequence["example"]})
        elapsed = time.time() - started
        per_step = elapsed / done_steps_here
        recent = [entry["loss"] for entry in history[-10:]]
        log(
            f"step {step}/{total_steps}  loss {history[-1]['loss']:.4f}  (last 10: {sum(recent) / len(recent):.4f})  "
            f"{per_step:.2f} s/step  elapsed {format_duration(elapsed)}  ETA {format_duration(per_step * (total_steps - step))}"
        )
        if arguments.save_each_epoch and step % steps_per_epoch == 0:
            # The adapter as a run of step // steps_per_epoch epochs would end (same order, constant rate).
            epoch_dir = os.path.join(arguments.out, f"adapter-hf-epoch-{step // steps_per_epoch}")
            write_whole(epoch_dir, model.save_pretrained)
            log(f"epoch {step // steps_per_epoch} ends at step {step}: adapter kept in {epoch_dir}")
        out_of_time = deadline is not None and time.time() >= deadline and step < total_steps
        if step % arguments.checkpoint_every == 0 or step == total_steps or out_of_time:
            save_checkpoint(model, optimizer, torch, checkpoint_dir, {
                "step": step,
                "history": history,
                "held_out_before": before,
                "fit_loss_before": fit_before,
                "plan": plan,
                "torch_rng": torch.get_rng_state().tolist(),
            })
        if out_of_time:
            stopped_for_time = True
            break

    summary = {"steps": step, "total_steps": total_steps, "stopped_for_time": stopped_for_time, "history": history,
               "held_out_before": before, "fit_loss_before": fit_before, "training_sequences": len(training), "held_out_sequences": len(held_out),
               "seconds_this_run": time.time() - started, "device": device, "rank": rank}
    if not stopped_for_time:
        summary["held_out_after"] = held_out_metrics(model, torch, held_out)
        summary["fit_loss_after"] = fit_loss(model, torch, training)
        log(f"held-out after training: {json.dumps(summary['held_out_after'])}; training-set loss {summary['fit_loss_after']:.4f}")
        adapter_dir = os.path.join(arguments.out, "adapter-hf")
        shutil.rmtree(adapter_dir, ignore_errors=True)
        model.save_pretrained(adapter_dir)
        if arguments.merge_dir:
            merged = model.merge_and_unload()
            merged.save_pretrained(arguments.merge_dir)
            transformers.AutoTokenizer.from_pretrained(arguments.float_dir).save_pretrained(arguments.merge_dir)
    with open(os.path.join(arguments.out, "training.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1)
    return 4 if stopped_for_time else 0


if __name__ == "__main__":
    sys.exit(main())
