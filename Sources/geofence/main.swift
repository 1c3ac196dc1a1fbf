print("geofence")
