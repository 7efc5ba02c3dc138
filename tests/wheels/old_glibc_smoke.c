/* Loads a plugin library through the C API only (no Python), for running
   inside an older Linux root:

     old_glibc_smoke PLUGIN.so run              create a client, compile and run
                                                 an f32 add, check 1+2=3 and 4+5=9
     old_glibc_smoke PLUGIN.so compile OPT=...   create a compile-only client with
                                                 the given bool/string options and
                                                 compile the same module
     old_glibc_smoke PLUGIN.so error HLO_FILE    compile a module the compiler must
                                                 reject, print its message

   Prints "ok: ..." and exits 0, or prints what failed and exits 1. */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/pjrt/c/pjrt_c_api.h"

static const char kAddModule[] =
    "HloModule add\n"
    "ENTRY main {\n"
    "  x = f32[2] parameter(0)\n"
    "  y = f32[2] parameter(1)\n"
    "  ROOT s = f32[2] add(x, y)\n"
    "}\n";

static const PJRT_Api* api;

/* Prints the error's message with `what` and exits when `error` is set. */
static void check(PJRT_Error* error, const char* what) {
  if (error == NULL) return;
  PJRT_Error_Message_Args m = {PJRT_Error_Message_Args_STRUCT_SIZE, NULL, error, NULL, 0};
  api->PJRT_Error_Message(&m);
  printf("%s failed: %.*s\n", what, (int)m.message_size, m.message);
  exit(1);
}

static char* message_of(PJRT_Error* error) {
  PJRT_Error_Message_Args m = {PJRT_Error_Message_Args_STRUCT_SIZE, NULL, error, NULL, 0};
  api->PJRT_Error_Message(&m);
  char* text = malloc(m.message_size + 1);
  memcpy(text, m.message, m.message_size);
  text[m.message_size] = 0;
  return text;
}

static PJRT_Client* create_client(PJRT_NamedValue* options, size_t num_options) {
  PJRT_Plugin_Initialize_Args init = {PJRT_Plugin_Initialize_Args_STRUCT_SIZE, NULL};
  check(api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize");
  PJRT_Client_Create_Args create = {PJRT_Client_Create_Args_STRUCT_SIZE, NULL, options,
                                    num_options, NULL};
  check(api->PJRT_Client_Create(&create), "PJRT_Client_Create");
  return create.client;
}

static PJRT_Error* compile(PJRT_Client* client, const char* code, PJRT_LoadedExecutable** out) {
  PJRT_Client_Compile_Args args = {0};
  args.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE;
  args.client = client;
  args.format = "hlo";
  args.format_size = 3;
  args.code = code;
  args.code_size = strlen(code);
  PJRT_Error* error = api->PJRT_Client_Compile(&args);
  *out = args.executable;
  return error;
}

static PJRT_Buffer* upload(PJRT_Client* client, PJRT_Device* device, const float* data) {
  static const int64_t dims[1] = {2};
  PJRT_Client_BufferFromHostBuffer_Args args = {0};
  args.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = data;
  args.type = PJRT_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = 1;
  args.device = device;
  check(api->PJRT_Client_BufferFromHostBuffer(&args), "PJRT_Client_BufferFromHostBuffer");
  return args.buffer;
}

static int run_add(void) {
  PJRT_Client* client = create_client(NULL, 0);
  PJRT_Client_Devices_Args devices = {PJRT_Client_Devices_Args_STRUCT_SIZE, NULL, client, NULL, 0};
  check(api->PJRT_Client_AddressableDevices(&devices), "PJRT_Client_AddressableDevices");
  if (devices.num_devices == 0) {
    printf("the client has no devices\n");
    return 1;
  }
  PJRT_LoadedExecutable* executable;
  check(compile(client, kAddModule, &executable), "PJRT_Client_Compile");

  const float x[2] = {1, 4}, y[2] = {2, 5};
  PJRT_Buffer* arguments[2] = {upload(client, devices.devices[0], x),
                               upload(client, devices.devices[0], y)};
  PJRT_Buffer* const* argument_lists[1] = {arguments};
  PJRT_Buffer* outputs[1] = {NULL};
  PJRT_Buffer** output_lists[1] = {outputs};
  PJRT_LoadedExecutable_Execute_Args execute = {0};
  execute.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  execute.executable = executable;
  execute.argument_lists = argument_lists;
  execute.num_devices = 1;
  execute.num_args = 2;
  execute.output_lists = output_lists;
  check(api->PJRT_LoadedExecutable_Execute(&execute), "PJRT_LoadedExecutable_Execute");

  float result[2] = {0, 0};
  PJRT_Buffer_ToHostBuffer_Args copy = {0};
  copy.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  copy.src = outputs[0];
  copy.dst = result;
  copy.dst_size = sizeof result;
  check(api->PJRT_Buffer_ToHostBuffer(&copy), "PJRT_Buffer_ToHostBuffer");
  if (copy.event != NULL) {
    PJRT_Event_Await_Args wait = {PJRT_Event_Await_Args_STRUCT_SIZE, NULL, copy.event};
    check(api->PJRT_Event_Await(&wait), "PJRT_Event_Await");
    PJRT_Event_Destroy_Args done = {PJRT_Event_Destroy_Args_STRUCT_SIZE, NULL, copy.event};
    check(api->PJRT_Event_Destroy(&done), "PJRT_Event_Destroy");
  }
  if (result[0] != 3.0f || result[1] != 9.0f) {
    printf("add returned [%g, %g], expected [3, 9]\n", result[0], result[1]);
    return 1;
  }
  printf("ok: [1, 4] + [2, 5] = [%g, %g] on %zu device(s)\n", result[0], result[1],
         devices.num_devices);
  return 0;
}

/* "name=true" and "name=false" are bools, anything else after '=' a string. */
static int compile_only(int count, char** specs) {
  PJRT_NamedValue options[16];
  if (count > 16) count = 16;
  for (int i = 0; i < count; ++i) {
    char* eq = strchr(specs[i], '=');
    if (eq == NULL) {
      printf("option %s is not name=value\n", specs[i]);
      return 1;
    }
    *eq = 0;
    PJRT_NamedValue* o = &options[i];
    memset(o, 0, sizeof *o);
    o->struct_size = PJRT_NamedValue_STRUCT_SIZE;
    o->name = specs[i];
    o->name_size = strlen(specs[i]);
    const char* value = eq + 1;
    if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
      o->type = PJRT_NamedValue_kBool;
      o->bool_value = strcmp(value, "true") == 0;
      o->value_size = 1;
    } else {
      o->type = PJRT_NamedValue_kString;
      o->string_value = value;
      o->value_size = strlen(value);
    }
  }
  PJRT_Client* client = create_client(options, (size_t)count);
  PJRT_Client_PlatformName_Args name = {PJRT_Client_PlatformName_Args_STRUCT_SIZE, NULL, client,
                                        NULL, 0};
  check(api->PJRT_Client_PlatformName(&name), "PJRT_Client_PlatformName");
  PJRT_LoadedExecutable* executable;
  check(compile(client, kAddModule, &executable), "PJRT_Client_Compile");
  printf("ok: compiled on the compile-only %.*s client\n", (int)name.platform_name_size,
         name.platform_name);
  return 0;
}

static int compile_error(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    printf("cannot open %s\n", path);
    return 1;
  }
  static char code[1 << 16];
  size_t n = fread(code, 1, sizeof code - 1, f);
  fclose(f);
  code[n] = 0;
  PJRT_Client* client = create_client(NULL, 0);
  PJRT_LoadedExecutable* executable = NULL;
  PJRT_Error* error = compile(client, code, &executable);
  if (error == NULL) {
    printf("the compiler accepted the module\n");
    return 1;
  }
  printf("ok: rejected: %s\n", message_of(error));
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PLUGIN.so run|compile [OPT=VALUE...]|error HLO_FILE\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  PJRT_GetPjrtApi_Fn get_api = (PJRT_GetPjrtApi_Fn)dlsym(library, "GetPjrtApi");
  if (get_api == NULL || (api = get_api()) == NULL) {
    printf("no GetPjrtApi in %s\n", argv[1]);
    return 1;
  }
  if (strcmp(argv[2], "run") == 0) return run_add();
  if (strcmp(argv[2], "compile") == 0) return compile_only(argc - 3, argv + 3);
  if (strcmp(argv[2], "error") == 0 && argc == 4) return compile_error(argv[3]);
  fprintf(stderr, "unknown mode %s\n", argv[2]);
  return 2;
}
