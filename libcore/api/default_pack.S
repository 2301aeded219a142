/* The default pack, compiled from signatures/ at build time, embedded as
   read-only data. FL_DEFAULT_PACK_PATH is defined by CMake. Hidden: only the
   fl_ API is exported. */
#define FL_STR2(x) #x
#define FL_STR(x) FL_STR2(x)
        .section .rodata.fl_default_pack, "a"
        .balign 8
        .globl fl__default_pack_start
        .hidden fl__default_pack_start
        .globl fl__default_pack_end
        .hidden fl__default_pack_end
fl__default_pack_start:
        .incbin FL_STR(FL_DEFAULT_PACK_PATH)
fl__default_pack_end:
        .section .note.GNU-stack, "", @progbits
