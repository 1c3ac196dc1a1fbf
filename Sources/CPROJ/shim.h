#pragma once
#include <proj.h>
#include <geodesic.h>
