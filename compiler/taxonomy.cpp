#include "taxonomy.h"

namespace faultline::taxonomy {

// The failure types of ../shared/eval/CLASSES.md. Append new ones; never
// rename or remove one: packs, reports and labels refer to them by name.
const std::vector<std::string_view> &types() {
  static const std::vector<std::string_view> v = {
      "rdzv_timeout",
      "rdzv_connection",
      "rdzv_closed",
      "port_in_use",
      "nccl_timeout",
      "nccl_network_config",
      "nccl_ib_error",
      "nccl_system_error",
      "nccl_remote_error",
      "nccl_invalid_usage",
      "collective_mismatch",
      "gloo_error",
      "cuda_oom",
      "host_oom",
      "shm_exhausted",
      "dataloader_worker_died",
      "cuda_illegal_access",
      "device_assert",
      "cuda_lib_error",
      "gpu_hardware",
      "cuda_setup",
      "numerical_instability",
      "ddp_unused_params",
      "autograd_error",
      "dtype_device_mismatch",
      "shape_mismatch",
      "checkpoint_error",
      "disk_full",
      "storage_io",
      "dependency_mismatch",
      "config_error",
      "preemption_or_timelimit",
      "segfault",
      "other",
  };
  return v;
}

const std::vector<std::string_view> &categories() {
  static const std::vector<std::string_view> v = {
      "network", "memory",     "cuda",       "hardware", "numerics",  "launcher", "storage",
      "config",  "dependency", "checkpoint", "code",     "scheduler", "data",     "process",
  };
  return v;
}

const std::vector<std::string_view> &severities() {
  static const std::vector<std::string_view> v = {"info", "low", "medium", "high", "critical"};
  return v;
}

const std::vector<std::string_view> &actions() {
  static const std::vector<std::string_view> v = {
      "retry", "exclude-node-and-retry", "fix-config", "fix-code", "fix-environment", "add-resources", "stop", "investigate",
  };
  return v;
}

const std::vector<std::string_view> &roles() {
  static const std::vector<std::string_view> v = {"cause", "collateral", "wrapper", "symptom"};
  return v;
}

const std::vector<std::string_view> &job_facts() {
  static const std::vector<std::string_view> v = {"multi-node", "single-node", "completed-after"};
  return v;
}

// Where a code fix differs between the ways people train; the entry page
// names them (report/entry_page.cpp keeps the display names in this order).
const std::vector<std::string_view> &code_stacks() {
  static const std::vector<std::string_view> v = {
      "pytorch", "hf-trainer", "accelerate", "deepspeed", "megatron", "nemo",       "lightning",
      "fsdp",    "vllm",       "sglang",     "jax",       "ray",      "tensorflow",
  };
  return v;
}

const std::vector<std::string_view> &code_languages() {
  static const std::vector<std::string_view> v = {"python", "sh", "json", "yaml"};
  return v;
}

const std::vector<std::string_view> &questions() {
  static const std::vector<std::string_view> v = {"hardware_or_software", "fix_time", "affects_inference", "cheapest_confirm"};
  return v;
}

int index_of(const std::vector<std::string_view> &list, std::string_view word) {
  for (size_t i = 0; i < list.size(); i++)
    if (list[i] == word) return static_cast<int>(i);
  return -1;
}

}  // namespace faultline::taxonomy
