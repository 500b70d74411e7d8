"""Rewrites a LoRA adapter GGUF's descriptive metadata, leaving its tensors as they are.

Adapters converted before `botpsy tune train` wrote its own model card carry the
metadata peft's card gave llama.cpp's converter: a name taken from the work folder
("Adapter Hf") and a base model named by the local folder it was loaded from (a path
on the training machine, with a made-up model-hub address). This writes what the
converter now writes from botpsy's card: the adapter's name, its base by catalog
name, and the tags `lora` and `botpsy`. Every other key and every tensor byte are
copied in their order, so the result equals a fresh conversion with that card.

Run with the training environment's Python (it has the `gguf` package):
    python scripts/adapter-metadata.py IN.gguf OUT.gguf --name NAME --base-name BASE
"""

import argparse
import os
import sys

import gguf


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--name", required=True, help="the adapter's name (its file name without .gguf)")
    parser.add_argument("--base-name", required=True, help="the base model's catalog name")
    arguments = parser.parse_args()
    if os.path.abspath(arguments.input) == os.path.abspath(arguments.output):
        sys.exit("Write to a new file and compare it before replacing the old one: OUT must differ from IN.")

    reader = gguf.GGUFReader(arguments.input)
    if reader.fields.get("general.type") is None or reader.fields["general.type"].contents() != "adapter":
        sys.exit(f"{arguments.input} is not an adapter GGUF (general.type is not 'adapter').")
    architecture = reader.fields["general.architecture"].contents()
    replaced = {
        "general.name": arguments.name,
        "general.base_model.0.name": arguments.base_name,
        "general.tags": ["lora", "botpsy"],
    }
    dropped = {"general.base_model.0.repo_url"}

    writer = gguf.GGUFWriter(arguments.output + ".partial", architecture, endianess=reader.endianess)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture" or field.name in dropped:
            continue
        kind = field.types[0]
        sub_kind = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = replaced.get(field.name, field.contents())
        writer.add_key_value(field.name, value, kind, sub_type=sub_kind)
    for tensor in reader.tensors:
        writer.add_tensor_info(tensor.name, tensor.data.shape, tensor.data.dtype, tensor.data.nbytes, tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in reader.tensors:
        writer.write_tensor_data(tensor.data, tensor_endianess=reader.endianess)
    writer.close()
    os.replace(arguments.output + ".partial", arguments.output)

    rewritten = gguf.GGUFReader(arguments.output)
    if [t.name for t in rewritten.tensors] != [t.name for t in reader.tensors] or any(
        a.data.tobytes() != b.data.tobytes() for a, b in zip(rewritten.tensors, reader.tensors)
    ):
        os.remove(arguments.output)
        sys.exit("The rewritten file's tensors differ from the input's; nothing was written.")
    print(f"{arguments.output}: {len(reader.tensors)} tensors copied unchanged; name {arguments.name!r}, base {arguments.base_name!r}")


if __name__ == "__main__":
    main()
