/* Mirrors the standard device-tree binding constants for the MIPS GIC. */
#ifndef FE_DT_BINDINGS_INTERRUPT_CONTROLLER_MIPS_GIC_H
#define FE_DT_BINDINGS_INTERRUPT_CONTROLLER_MIPS_GIC_H

#include <dt-bindings/interrupt-controller/irq.h>

#define GIC_SHARED 0
#define GIC_LOCAL 1

#endif
