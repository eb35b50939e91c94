"""Loads the Hypothesis profile (``ci`` by default, ``fuzz`` for ``make fuzz``) before any test,
and holds the fixtures several test files share."""

import pytest

import hypothesis_profiles  # noqa: F401  (registers and loads the profile)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A tiny *random* Llama with the embedded SmolLM2 tokenizer (and its chat template): real TRL
    generation, scoring and optimizer steps in about a second each on CPU."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from models.embedded_model import ensure_embedded_model

    tokenizer = AutoTokenizer.from_pretrained(ensure_embedded_model())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    out = tmp_path_factory.mktemp("tiny_llama")
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return str(out)
