/* Mirrors the standard device-tree binding constants for the ARM GIC. */
#ifndef FE_DT_BINDINGS_INTERRUPT_CONTROLLER_ARM_GIC_H
#define FE_DT_BINDINGS_INTERRUPT_CONTROLLER_ARM_GIC_H

#include <dt-bindings/interrupt-controller/irq.h>

#define GIC_SPI 0
#define GIC_PPI 1

/* CPU target mask in the third cell of GICv2 PPI specifiers. */
#define GIC_CPU_MASK_RAW(x) ((x) << 8)
#define GIC_CPU_MASK_SIMPLE(num) GIC_CPU_MASK_RAW((1 << (num)) - 1)

#endif
